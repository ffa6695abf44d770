/**
 * Mobile plans: moving an account to another plan.
 *
 *   GET  /mobile/accounts?phone_number=…           → { account_id, holder, current_plan } (404)
 *   POST /mobile/accounts/{id}/verify              { pin } → { account_id, verification_token } (401, 423 locked)
 *   GET  /mobile/plans                             the plans on offer
 *   POST /mobile/accounts/{id}/eligibility         { plan_code, verification_token }
 *                                                  → { eligibility_id, effective_date, monthly_price,
 *                                                      early_change_fee } (409 NOT_ELIGIBLE, ALREADY_ON_PLAN)
 *   POST /mobile/accounts/{id}/plan                { plan_code, eligibility_id, verification_token }
 *                                                  → { change_id, plan_code, previous_plan, effective_date }
 *
 * Preconditions (violations when skipped): the PIN's token for anything about the account; a change carries the
 * eligibility_id of a check of that account and plan.
 */
import {
  ApiError,
  type Domain,
  issueToken,
  money,
  nextId,
  queryText,
  type Request,
  requireToken,
  route,
  text,
  violation,
} from '../http-kit.js';
import type { Db } from '../store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mobile_plans (
  code TEXT PRIMARY KEY, name TEXT NOT NULL, monthly_cents INTEGER NOT NULL, data TEXT NOT NULL,
  needs_5g INTEGER NOT NULL, rank INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS mobile_accounts (
  id TEXT PRIMARY KEY, holder TEXT NOT NULL, phone_number TEXT NOT NULL UNIQUE, pin TEXT NOT NULL,
  plan_code TEXT NOT NULL REFERENCES mobile_plans(code), device_5g INTEGER NOT NULL, balance_cents INTEGER NOT NULL,
  contract_ends TEXT NOT NULL, failed_pins INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS plan_eligibility (
  id TEXT PRIMARY KEY, account_id TEXT NOT NULL, plan_code TEXT NOT NULL, fee_cents INTEGER NOT NULL,
  used INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS plan_changes (
  id TEXT PRIMARY KEY, account_id TEXT NOT NULL, from_plan TEXT NOT NULL, to_plan TEXT NOT NULL,
  effective_date TEXT NOT NULL
);
`;

const SEED_PLANS: [code: string, name: string, cents: number, data: string, needs5g: number, rank: number][] = [
  ['BASIC10', 'Basic 10 GB', 1200, '10 GB', 0, 1],
  ['PLUS30', 'Plus 30 GB', 1800, '30 GB', 0, 2],
  ['TRAVEL20', 'Travel 20 GB with EU roaming', 2200, '20 GB', 0, 3],
  ['UNL5G', 'Unlimited 5G', 3000, 'unlimited', 1, 4],
];

const SEED_ACCOUNTS: [
  id: string,
  holder: string,
  phone: string,
  pin: string,
  plan: string,
  device5g: number,
  balance: number,
  contractEnds: string,
][] = [
  ['M-7001', 'Noah Williams', '07700900111', '4812', 'BASIC10', 1, 0, '2025-10-01'],
  ['M-7002', 'Chloe Martin', '07700900222', '1357', 'UNL5G', 1, 0, '2026-08-31'],
  ['M-7003', 'Ethan Clarke', '07700900333', '2468', 'PLUS30', 0, 0, '2025-06-30'],
  ['M-7004', 'Mia Schultz', '07700900444', '9021', 'PLUS30', 1, 4250, '2026-03-31'],
];

/** Moving to a cheaper plan before the contract ends costs this. */
const EARLY_DOWNGRADE_FEE_CENTS = 3000;
const MAX_FAILED = 3;

function seed(db: Db): void {
  const plan = db.prepare('INSERT INTO mobile_plans VALUES (?, ?, ?, ?, ?, ?)');
  for (const row of SEED_PLANS) plan.run(...row);
  const account = db.prepare(
    'INSERT INTO mobile_accounts (id, holder, phone_number, pin, plan_code, device_5g, balance_cents, contract_ends) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const row of SEED_ACCOUNTS) account.run(...row);
}

interface AccountRow {
  id: string;
  holder: string;
  phone_number: string;
  pin: string;
  plan_code: string;
  device_5g: number;
  balance_cents: number;
  contract_ends: string;
  failed_pins: number;
}
interface PlanRow {
  code: string;
  name: string;
  monthly_cents: number;
  data: string;
  needs_5g: number;
  rank: number;
}

function accountOf(db: Db, id: string): AccountRow | undefined {
  return db.prepare('SELECT * FROM mobile_accounts WHERE id = ?').get(id) as AccountRow | undefined;
}

function planOf(db: Db, code: string): PlanRow {
  const plan = db.prepare('SELECT * FROM mobile_plans WHERE code = ?').get(code.toUpperCase()) as PlanRow | undefined;
  if (!plan) throw new ApiError(404, 'PLAN_NOT_FOUND', `no plan ${code}; see GET /mobile/plans`);
  return plan;
}

/** The account of the path, opened by the token of its PIN check (a violation without). */
function verifiedAccount(db: Db, request: Request): AccountRow {
  const id = request.params.id!;
  requireToken(db, request, 'verification_token', 'pin', id, 'verify the PIN (POST /mobile/accounts/{id}/verify)');
  return accountOf(db, id)!;
}

/** Plan changes take effect on the first day of the next month. */
function nextMonth(today: string): string {
  const [year, month] = today.split('-').map(Number) as [number, number];
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

const planView = (plan: PlanRow) => ({
  plan_code: plan.code,
  name: plan.name,
  monthly_price: money(plan.monthly_cents),
  data: plan.data,
  needs_5g_device: plan.needs_5g === 1,
});

const ROUTES = [
  route('GET', '/mobile/accounts', (db, { query }) => {
    const phone = queryText(query, 'phone_number', { max: 30 }).replace(/\D/g, '');
    const account = db.prepare('SELECT * FROM mobile_accounts WHERE phone_number = ?').get(phone) as
      | AccountRow
      | undefined;
    if (!account) throw new ApiError(404, 'ACCOUNT_NOT_FOUND', `no account for ${phone}`);
    return { body: { account_id: account.id, holder: account.holder, current_plan: account.plan_code } };
  }),

  route('POST', '/mobile/accounts/{id}/verify', (db, { params, body }) => {
    // The account id comes from find_account: an unknown one means that step was skipped.
    const account = accountOf(db, params.id!);
    if (!account) throw violation(404, 'ACCOUNT_NOT_FOUND', `no account ${params.id}; find the account first`);
    const pin = text(body, 'pin', { max: 12 });
    if (account.failed_pins >= MAX_FAILED) {
      throw new ApiError(423, 'LOCKED', `account ${account.id} is locked after ${MAX_FAILED} wrong PINs`);
    }
    if (pin !== account.pin) {
      db.prepare('UPDATE mobile_accounts SET failed_pins = failed_pins + 1 WHERE id = ?').run(account.id);
      throw new ApiError(401, 'PIN_INCORRECT', 'the PIN is not correct');
    }
    db.prepare('UPDATE mobile_accounts SET failed_pins = 0 WHERE id = ?').run(account.id);
    return { body: { account_id: account.id, verification_token: issueToken(db, 'pin', account.id) } };
  }),

  route('GET', '/mobile/plans', (db) => {
    const plans = db.prepare('SELECT * FROM mobile_plans ORDER BY rank').all() as PlanRow[];
    return { body: { plans: plans.map(planView) } };
  }),

  route('POST', '/mobile/accounts/{id}/eligibility', (db, request, today) => {
    const account = verifiedAccount(db, request);
    const plan = planOf(db, text(request.body, 'plan_code', { max: 20 }));
    if (plan.code === account.plan_code) {
      throw new ApiError(409, 'ALREADY_ON_PLAN', `account ${account.id} is already on ${plan.code}`);
    }
    if (account.balance_cents > 0) {
      throw new ApiError(
        409,
        'NOT_ELIGIBLE',
        `account ${account.id} has an unpaid balance of ${money(account.balance_cents).toFixed(2)}; pay it first`,
      );
    }
    if (plan.needs_5g === 1 && account.device_5g !== 1) {
      throw new ApiError(409, 'NOT_ELIGIBLE', `${plan.code} needs a 5G device; the account's device is not 5G`);
    }
    const current = planOf(db, account.plan_code);
    const fee = plan.rank < current.rank && account.contract_ends > today ? EARLY_DOWNGRADE_FEE_CENTS : 0;
    const id = nextId(db, 'plan_eligibility', 'EL');
    db.prepare('INSERT INTO plan_eligibility (id, account_id, plan_code, fee_cents) VALUES (?, ?, ?, ?)').run(
      id,
      account.id,
      plan.code,
      fee,
    );
    return {
      body: {
        eligibility_id: id,
        account_id: account.id,
        plan_code: plan.code,
        eligible: true,
        effective_date: nextMonth(today),
        monthly_price: money(plan.monthly_cents),
        early_change_fee: money(fee),
      },
    };
  }),

  route('POST', '/mobile/accounts/{id}/plan', (db, request, today) => {
    const account = verifiedAccount(db, request);
    const plan = planOf(db, text(request.body, 'plan_code', { max: 20 }));
    const eligibilityId = request.body.eligibility_id;
    if (typeof eligibilityId !== 'string' || eligibilityId === '') {
      throw violation(409, 'ELIGIBILITY_REQUIRED', 'check the eligibility first and pass its eligibility_id');
    }
    const check = db.prepare('SELECT * FROM plan_eligibility WHERE id = ?').get(eligibilityId) as
      | { account_id: string; plan_code: string; fee_cents: number; used: number }
      | undefined;
    if (!check || check.account_id !== account.id || check.plan_code !== plan.code) {
      throw violation(
        409,
        'INVALID_ELIGIBILITY',
        `${eligibilityId} is not an eligibility check of ${account.id} for ${plan.code}`,
      );
    }
    if (check.used === 1) throw new ApiError(409, 'ELIGIBILITY_USED', `${eligibilityId} has already been used`);
    const id = nextId(db, 'plan_changes', 'PC');
    const effective = nextMonth(today);
    db.transaction(() => {
      db.prepare(
        'INSERT INTO plan_changes (id, account_id, from_plan, to_plan, effective_date) VALUES (?, ?, ?, ?, ?)',
      ).run(id, account.id, account.plan_code, plan.code, effective);
      db.prepare('UPDATE mobile_accounts SET plan_code = ? WHERE id = ?').run(plan.code, account.id);
      db.prepare('UPDATE plan_eligibility SET used = 1 WHERE id = ?').run(eligibilityId);
    })();
    return {
      status: 201,
      body: {
        change_id: id,
        account_id: account.id,
        plan_code: plan.code,
        previous_plan: account.plan_code,
        effective_date: effective,
        early_change_fee: money(check.fee_cents),
      },
    };
  }),
];

export const MOBILE: Domain = {
  name: 'mobile',
  schema: SCHEMA,
  tables: ['plan_changes', 'plan_eligibility', 'mobile_accounts', 'mobile_plans'],
  seed,
  routes: ROUTES,
};
