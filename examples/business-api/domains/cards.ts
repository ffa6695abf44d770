/**
 * Bank cards: replacing a lost, stolen or damaged card.
 *
 *   POST /bank/verify                               { phone, date_of_birth }
 *                                                   → { customer_id, name, verification_token } (401, 423 locked)
 *   GET  /bank/customers/{id}/cards?verification_token=…   the customer's cards (403 without the token)
 *   POST /bank/cards/block                          { customer_id, card_last4, reason: lost | stolen | damaged,
 *                                                     verification_token } → { card_id, … status: blocked }
 *   GET  /bank/cards/{card_id}/delivery-options?verification_token=…
 *                                                   → { delivery_quote_id, options } (409 unless blocked)
 *   POST /bank/cards/{card_id}/replacement          { delivery_option, delivery_quote_id, verification_token }
 *                                                   → { replacement_id, new_card_last4, fee, arrives_on }
 *
 * Preconditions (violations when skipped): the token of verify for everything about the customer's cards; a card
 * is blocked before its delivery options are offered; a replacement carries the quote of its delivery options.
 */
import {
  ApiError,
  addDays,
  type Domain,
  issueToken,
  money,
  nextId,
  oneOf,
  type Request,
  requireToken,
  route,
  text,
  violation,
} from '../http-kit.js';
import type { Db } from '../store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bank_customers (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, phone TEXT NOT NULL UNIQUE, date_of_birth TEXT NOT NULL,
  address TEXT NOT NULL, failed_verifications INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS cards (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES bank_customers(id), kind TEXT NOT NULL,
  last4 TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('active', 'blocked', 'closed')), expires TEXT NOT NULL,
  blocked_reason TEXT
);
CREATE TABLE IF NOT EXISTS delivery_quotes (id TEXT PRIMARY KEY, card_id TEXT NOT NULL REFERENCES cards(id));
CREATE TABLE IF NOT EXISTS replacements (
  id TEXT PRIMARY KEY, card_id TEXT NOT NULL UNIQUE REFERENCES cards(id), new_card_id TEXT NOT NULL,
  delivery_option TEXT NOT NULL, fee_cents INTEGER NOT NULL, arrives_on TEXT NOT NULL
);
`;

const SEED_CUSTOMERS: [id: string, name: string, phone: string, dateOfBirth: string, address: string][] = [
  ['B-2001', 'Maya Patel', '5550101', '1988-04-12', '44 Harbour Road, Leeds LS1 4AB'],
  ['B-2002', 'Tom Okafor', '5550102', '1975-11-30', '9 Mill Lane, York YO1 7HH'],
  ['B-2003', 'Lena Fischer', '5550103', '1999-02-07', '21 Canal Street, Bristol BS1 5TR'],
  ['B-2004', 'Ravi Kumar', '5550104', '1963-07-21', '5 Orchard Close, Bath BA1 2QP'],
];

const SEED_CARDS: [id: string, customer: string, kind: string, last4: string, status: string, expires: string][] = [
  ['CARD-01', 'B-2001', 'debit', '4821', 'active', '2028-09'],
  ['CARD-02', 'B-2001', 'credit', '7730', 'active', '2027-03'],
  ['CARD-03', 'B-2002', 'debit', '1195', 'active', '2026-11'],
  ['CARD-04', 'B-2002', 'credit', '6402', 'closed', '2025-12'],
  ['CARD-05', 'B-2003', 'debit', '3057', 'blocked', '2029-01'],
  ['CARD-06', 'B-2004', 'debit', '9012', 'active', '2027-06'],
];

/** Delivery of a new card: fee and days, the same for every card. */
const DELIVERY = {
  standard: { fee_cents: 0, days: 5 },
  express: { fee_cents: 1500, days: 2 },
  branch_pickup: { fee_cents: 0, days: 1 },
} as const;
type DeliveryOption = keyof typeof DELIVERY;
const DELIVERY_OPTIONS = Object.keys(DELIVERY) as DeliveryOption[];

const MAX_FAILED = 3;

function seed(db: Db): void {
  const customer = db.prepare(
    'INSERT INTO bank_customers (id, name, phone, date_of_birth, address) VALUES (?, ?, ?, ?, ?)',
  );
  for (const row of SEED_CUSTOMERS) customer.run(...row);
  const card = db.prepare(
    'INSERT INTO cards (id, customer_id, kind, last4, status, expires) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const row of SEED_CARDS) card.run(...row);
  db.prepare("UPDATE cards SET blocked_reason = 'stolen' WHERE id = 'CARD-05'").run();
}

interface CustomerRow {
  id: string;
  name: string;
  phone: string;
  date_of_birth: string;
  address: string;
  failed_verifications: number;
}
interface CardRow {
  id: string;
  customer_id: string;
  kind: string;
  last4: string;
  status: string;
  expires: string;
  blocked_reason: string | null;
}

/** Phone numbers are compared by their digits: "555-0101" and "555 0101" are one number. */
const digits = (value: string): string => value.replace(/\D/g, '');

function requireBankToken(db: Db, request: Request, customerId: string): void {
  requireToken(db, request, 'verification_token', 'bank', customerId, 'verify the card holder (POST /bank/verify)');
}

/** A card id only comes from block_card: an unknown one means that step was skipped. */
function cardOf(db: Db, id: string): CardRow {
  const row = db.prepare('SELECT * FROM cards WHERE id = ?').get(id) as CardRow | undefined;
  if (!row) throw violation(404, 'CARD_NOT_FOUND', `no card ${id}; block the card first (POST /bank/cards/block)`);
  return row;
}

function requireBlocked(card: CardRow): void {
  if (card.status === 'active') {
    throw violation(409, 'CARD_NOT_BLOCKED', `card ending ${card.last4} is active; block it first`);
  }
  if (card.status === 'closed') {
    throw new ApiError(409, 'CARD_CLOSED', `card ending ${card.last4} is closed and cannot be replaced`);
  }
}

const cardView = (card: CardRow) => ({
  card_id: card.id,
  card_last4: card.last4,
  kind: card.kind,
  status: card.status,
  expires: card.expires,
});

const ROUTES = [
  route('POST', '/bank/verify', (db, { body }) => {
    const phone = digits(text(body, 'phone', { max: 40 }));
    const dateOfBirth = text(body, 'date_of_birth', { max: 20 });
    const customer = db.prepare('SELECT * FROM bank_customers WHERE phone = ?').get(phone) as CustomerRow | undefined;
    // The same answer for an unknown phone and a wrong birth date: the caller learns nothing about who banks here.
    if (!customer) throw new ApiError(401, 'VERIFICATION_FAILED', 'the phone number and date of birth do not match');
    if (customer.failed_verifications >= MAX_FAILED) {
      throw new ApiError(423, 'LOCKED', `verification is locked after ${MAX_FAILED} failed attempts; visit a branch`);
    }
    if (dateOfBirth !== customer.date_of_birth) {
      db.prepare('UPDATE bank_customers SET failed_verifications = failed_verifications + 1 WHERE id = ?').run(
        customer.id,
      );
      throw new ApiError(401, 'VERIFICATION_FAILED', 'the phone number and date of birth do not match');
    }
    db.prepare('UPDATE bank_customers SET failed_verifications = 0 WHERE id = ?').run(customer.id);
    return {
      body: { customer_id: customer.id, name: customer.name, verification_token: issueToken(db, 'bank', customer.id) },
    };
  }),

  route('GET', '/bank/customers/{id}/cards', (db, request) => {
    const customerId = request.params.id!;
    requireBankToken(db, request, customerId);
    const cards = db.prepare('SELECT * FROM cards WHERE customer_id = ? ORDER BY id').all(customerId) as CardRow[];
    return { body: { customer_id: customerId, cards: cards.map(cardView) } };
  }),

  route('POST', '/bank/cards/block', (db, request) => {
    const { body } = request;
    const customerId = text(body, 'customer_id', { max: 40 });
    const last4 = text(body, 'card_last4', { max: 4 });
    const reason = oneOf(text(body, 'reason', { max: 20 }), ['lost', 'stolen', 'damaged'], 'reason');
    requireBankToken(db, request, customerId);
    const card = db
      .prepare("SELECT * FROM cards WHERE customer_id = ? AND last4 = ? ORDER BY status = 'closed' LIMIT 1")
      .get(customerId, last4) as CardRow | undefined;
    if (!card) throw new ApiError(404, 'CARD_NOT_FOUND', `customer ${customerId} has no card ending ${last4}`);
    if (card.status === 'closed') {
      throw new ApiError(409, 'CARD_CLOSED', `card ending ${last4} is already closed`);
    }
    // Blocking twice is harmless (the first reason stays): a caller unsure whether it worked may simply repeat.
    if (card.status === 'active') {
      db.prepare("UPDATE cards SET status = 'blocked', blocked_reason = ? WHERE id = ?").run(reason, card.id);
    }
    const blocked = cardOf(db, card.id);
    return { body: { ...cardView(blocked), blocked_reason: blocked.blocked_reason } };
  }),

  route('GET', '/bank/cards/{card_id}/delivery-options', (db, request) => {
    const card = cardOf(db, request.params.card_id!);
    requireBankToken(db, request, card.customer_id);
    requireBlocked(card);
    const quoteId = nextId(db, 'delivery_quotes', 'DQ');
    db.prepare('INSERT INTO delivery_quotes (id, card_id) VALUES (?, ?)').run(quoteId, card.id);
    const customer = db.prepare('SELECT address FROM bank_customers WHERE id = ?').get(card.customer_id) as {
      address: string;
    };
    return {
      body: {
        card_id: card.id,
        delivery_quote_id: quoteId,
        address: customer.address,
        options: DELIVERY_OPTIONS.map((option) => ({
          delivery_option: option,
          fee: money(DELIVERY[option].fee_cents),
          days: DELIVERY[option].days,
        })),
      },
    };
  }),

  route('POST', '/bank/cards/{card_id}/replacement', (db, request, today) => {
    const { body } = request;
    const card = cardOf(db, request.params.card_id!);
    const option = oneOf(text(body, 'delivery_option', { max: 20 }), DELIVERY_OPTIONS, 'delivery_option');
    requireBankToken(db, request, card.customer_id);
    requireBlocked(card);
    const quoteId = body.delivery_quote_id;
    if (typeof quoteId !== 'string' || quoteId === '') {
      throw violation(409, 'QUOTE_REQUIRED', 'get the delivery options first and pass their delivery_quote_id');
    }
    const quote = db.prepare('SELECT card_id FROM delivery_quotes WHERE id = ?').get(quoteId) as
      | { card_id: string }
      | undefined;
    if (!quote || quote.card_id !== card.id) {
      throw violation(409, 'INVALID_QUOTE', `${quoteId} is not a delivery quote for card ending ${card.last4}`);
    }
    const id = nextId(db, 'replacements', 'RC');
    const sequence = Number(id.slice(3));
    const newCardId = `CARD-${String(100 + sequence)}`;
    const newLast4 = String(5000 + ((sequence * 3719) % 5000)).padStart(4, '0');
    const arrivesOn = addDays(today, DELIVERY[option].days);
    db.transaction(() => {
      db.prepare(
        "INSERT INTO cards (id, customer_id, kind, last4, status, expires) VALUES (?, ?, ?, ?, 'active', '2030-12')",
      ).run(newCardId, card.customer_id, card.kind, newLast4);
      db.prepare("UPDATE cards SET status = 'closed' WHERE id = ?").run(card.id);
      db.prepare(
        'INSERT INTO replacements (id, card_id, new_card_id, delivery_option, fee_cents, arrives_on) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(id, card.id, newCardId, option, DELIVERY[option].fee_cents, arrivesOn);
    })();
    return {
      status: 201,
      body: {
        replacement_id: id,
        card_id: card.id,
        new_card_last4: newLast4,
        delivery_option: option,
        fee: money(DELIVERY[option].fee_cents),
        arrives_on: arrivesOn,
      },
    };
  }),
];

export const CARDS: Domain = {
  name: 'cards',
  schema: SCHEMA,
  tables: ['replacements', 'delivery_quotes', 'cards', 'bank_customers'],
  seed,
  routes: ROUTES,
};
