/**
 * Orders and returns, the first domain of the business API:
 *
 *   GET    /customers?email=…              find a customer               → { customer_id, name, email, verified }
 *   POST   /customers/{id}/verify          { postal_code }               → { customer_id, verified, verification_token }
 *                                                                          (401 wrong, 423 locked)
 *   GET    /customers/{id}/orders?status=… the customer's orders
 *   GET    /orders/{id}                    one order with items and total
 *   GET    /orders/{id}/tracking           carrier and status            (409 before it ships, or cancelled)
 *   PATCH  /orders/{id}/address            { address, verification_token }      (403 no token, 409 once shipped)
 *   POST   /orders/{id}/cancel             { reason, verification_token }       (403 no token, 409 once shipped)
 *   POST   /returns                        { order_id, items: [{ sku, quantity }] | sku + quantity, reason,
 *                                            verification_token }
 *                                          (403 no token, 409 not delivered or past 30 days, 422 bad items)
 *   GET    /returns/{id}
 *   POST   /returns/{id}/approve                                         (409 unless requested)
 *   POST   /refunds                        { return_id, method: original_payment | store_credit }
 *                                          (409 unless the return is approved; once per return)
 *   GET    /refunds/{id}
 *
 * The verification token is the customer's: it opens changes to that customer's orders only.
 */
import {
  ApiError,
  type Domain,
  daysBetween,
  issueToken,
  money,
  nextId,
  type Request,
  requireToken,
  route,
  text,
  violation,
} from '../http-kit.js';
import { type Db, RETURN_WINDOW_DAYS } from '../store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS customers (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, postal_code TEXT NOT NULL,
  verified INTEGER NOT NULL DEFAULT 0, failed_verifications INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS orders (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('processing', 'shipped', 'delivered', 'cancelled')),
  placed_on TEXT NOT NULL, shipped_on TEXT, delivered_on TEXT, carrier TEXT, tracking_number TEXT,
  address TEXT NOT NULL, cancel_reason TEXT
);
CREATE TABLE IF NOT EXISTS order_items (
  order_id TEXT NOT NULL REFERENCES orders(id), sku TEXT NOT NULL, name TEXT NOT NULL,
  quantity INTEGER NOT NULL, unit_price_cents INTEGER NOT NULL, PRIMARY KEY (order_id, sku)
);
CREATE TABLE IF NOT EXISTS returns (
  id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), reason TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'refunded')), created_seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS return_items (
  return_id TEXT NOT NULL REFERENCES returns(id), sku TEXT NOT NULL, quantity INTEGER NOT NULL,
  PRIMARY KEY (return_id, sku)
);
CREATE TABLE IF NOT EXISTS refunds (
  id TEXT PRIMARY KEY, return_id TEXT NOT NULL UNIQUE REFERENCES returns(id), method TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);
`;

interface SeedOrder {
  id: string;
  customer: string;
  status: 'processing' | 'shipped' | 'delivered' | 'cancelled';
  placed: string;
  shipped?: string;
  delivered?: string;
  items: [sku: string, name: string, quantity: number, cents: number][];
}

const CUSTOMERS: [id: string, name: string, email: string, postalCode: string][] = [
  ['C-1001', 'Ada Lovelace', 'ada@example.com', '10001'],
  ['C-1002', 'Grace Hopper', 'grace@example.com', '20500'],
  ['C-1003', 'Alan Turing', 'alan@example.com', '94105'],
  ['C-1004', 'Katherine Johnson', 'katherine@example.com', '23666'],
];

const ADDRESSES: Record<string, string> = {
  'C-1001': '12 Analytical Row, New York, NY 10001',
  'C-1002': '1 Compiler Way, Washington, DC 20500',
  'C-1003': '7 Enigma Street, San Francisco, CA 94105',
  'C-1004': '3 Orbit Lane, Hampton, VA 23666',
};

const SEED_ORDERS: SeedOrder[] = [
  {
    id: 'O-5001',
    customer: 'C-1001',
    status: 'delivered',
    placed: '2026-01-02',
    shipped: '2026-01-03',
    delivered: '2026-01-05',
    items: [
      ['KB-01', 'Mechanical keyboard', 1, 8900],
      ['MS-02', 'Wireless mouse', 2, 2500],
    ],
  },
  {
    id: 'O-5002',
    customer: 'C-1001',
    status: 'shipped',
    placed: '2026-01-10',
    shipped: '2026-01-12',
    items: [['MN-27', '27-inch monitor', 1, 27900]],
  },
  {
    id: 'O-5003',
    customer: 'C-1001',
    status: 'processing',
    placed: '2026-01-14',
    items: [['CB-05', 'USB-C cable', 3, 900]],
  },
  {
    id: 'O-5004',
    customer: 'C-1002',
    status: 'delivered',
    placed: '2025-11-10',
    shipped: '2025-11-12',
    delivered: '2025-11-20',
    items: [['HD-10', 'Noise-cancelling headphones', 1, 19900]],
  },
  {
    id: 'O-5005',
    customer: 'C-1002',
    status: 'delivered',
    placed: '2026-01-06',
    shipped: '2026-01-07',
    delivered: '2026-01-10',
    items: [
      ['LP-14', 'Laptop stand', 1, 4500],
      ['WC-03', 'Webcam', 1, 6900],
    ],
  },
  {
    id: 'O-5006',
    customer: 'C-1003',
    status: 'cancelled',
    placed: '2026-01-08',
    items: [['DK-01', 'Docking station', 1, 15900]],
  },
  {
    id: 'O-5007',
    customer: 'C-1003',
    status: 'delivered',
    placed: '2026-01-09',
    shipped: '2026-01-11',
    delivered: '2026-01-14',
    items: [['SP-02', 'Desk speakers', 2, 5900]],
  },
  {
    id: 'O-5008',
    customer: 'C-1004',
    status: 'processing',
    placed: '2026-01-13',
    items: [['CH-01', 'Office chair', 1, 32900]],
  },
];

function seedOrders(db: Db): void {
  const customer = db.prepare('INSERT INTO customers (id, name, email, postal_code) VALUES (?, ?, ?, ?)');
  const order = db.prepare(
    `INSERT INTO orders (id, customer_id, status, placed_on, shipped_on, delivered_on, carrier, tracking_number, address)
     VALUES (@id, @customer, @status, @placed, @shipped, @delivered, @carrier, @tracking, @address)`,
  );
  const item = db.prepare(
    'INSERT INTO order_items (order_id, sku, name, quantity, unit_price_cents) VALUES (?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const row of CUSTOMERS) customer.run(...row);
    for (const seedOrder of SEED_ORDERS) {
      const shipped = seedOrder.shipped ?? null;
      order.run({
        id: seedOrder.id,
        customer: seedOrder.customer,
        status: seedOrder.status,
        placed: seedOrder.placed,
        shipped,
        delivered: seedOrder.delivered ?? null,
        carrier: shipped ? 'ParcelPost' : null,
        tracking: shipped ? `PP${seedOrder.id.slice(2)}0001` : null,
        address: ADDRESSES[seedOrder.customer],
      });
      for (const [sku, name, quantity, cents] of seedOrder.items) item.run(seedOrder.id, sku, name, quantity, cents);
    }
  })();
}

interface CustomerRow {
  id: string;
  name: string;
  email: string;
  postal_code: string;
  verified: number;
  failed_verifications: number;
}
interface OrderRow {
  id: string;
  customer_id: string;
  status: string;
  placed_on: string;
  shipped_on: string | null;
  delivered_on: string | null;
  carrier: string | null;
  tracking_number: string | null;
  address: string;
  cancel_reason: string | null;
}
interface ItemRow {
  sku: string;
  name: string;
  quantity: number;
  unit_price_cents: number;
}
interface ReturnRow {
  id: string;
  order_id: string;
  reason: string;
  status: string;
}

function customerOf(db: Db, id: string): CustomerRow | undefined {
  return db.prepare('SELECT * FROM customers WHERE id = ?').get(id) as CustomerRow | undefined;
}

function orderOf(db: Db, id: string): OrderRow {
  const row = db.prepare('SELECT * FROM orders WHERE id = ?').get(id) as OrderRow | undefined;
  if (!row) throw new ApiError(404, 'ORDER_NOT_FOUND', `no order ${id}`);
  return row;
}

/** A return id only comes from create_return: an unknown one means that step was skipped (a violation). */
function returnOf(db: Db, id: string): ReturnRow {
  const row = db.prepare('SELECT * FROM returns WHERE id = ?').get(id) as ReturnRow | undefined;
  if (!row) throw violation(404, 'RETURN_NOT_FOUND', `no return ${id}; open it with POST /returns first`);
  return row;
}

function requireCustomerToken(db: Db, request: Request, order: OrderRow): void {
  requireToken(
    db,
    request,
    'verification_token',
    'vt',
    order.customer_id,
    `verify customer ${order.customer_id} (POST /customers/{id}/verify)`,
  );
}

function customerView(row: CustomerRow) {
  return { customer_id: row.id, name: row.name, email: row.email, verified: row.verified === 1 };
}

function orderView(db: Db, row: OrderRow) {
  const items = db
    .prepare('SELECT sku, name, quantity, unit_price_cents FROM order_items WHERE order_id = ? ORDER BY sku')
    .all(row.id) as ItemRow[];
  return {
    order_id: row.id,
    customer_id: row.customer_id,
    status: row.status,
    placed_on: row.placed_on,
    delivered_on: row.delivered_on,
    address: row.address,
    items: items.map((item) => ({
      sku: item.sku,
      name: item.name,
      quantity: item.quantity,
      unit_price: money(item.unit_price_cents),
    })),
    total: money(items.reduce((sum, item) => sum + item.quantity * item.unit_price_cents, 0)),
  };
}

function returnView(db: Db, row: ReturnRow) {
  const items = db.prepare('SELECT sku, quantity FROM return_items WHERE return_id = ? ORDER BY sku').all(row.id);
  const refund = db.prepare('SELECT id FROM refunds WHERE return_id = ?').get(row.id) as { id: string } | undefined;
  return {
    return_id: row.id,
    order_id: row.order_id,
    status: row.status,
    reason: row.reason,
    items,
    refund_id: refund?.id ?? null,
  };
}

/** `items: [{ sku, quantity }]`, or one item as `sku` (+ `quantity`, default 1), which is easier to ask for. */
function returnItems(body: Record<string, unknown>): Map<string, number> {
  let items = body.items;
  if (items === undefined && body.sku !== undefined) {
    items = [{ sku: body.sku, quantity: body.quantity ?? 1 }];
  } else if (body.sku !== undefined) {
    throw new ApiError(400, 'BAD_REQUEST', 'give either "items" or "sku" (with "quantity"), not both');
  }
  if (!Array.isArray(items) || items.length === 0 || items.length > 50) {
    throw new ApiError(400, 'BAD_REQUEST', '"items" is required: a list of { sku, quantity } (1 to 50), or "sku"');
  }
  const wanted = new Map<string, number>();
  for (const item of items as unknown[]) {
    const { sku, quantity } = (item ?? {}) as { sku?: unknown; quantity?: unknown };
    if (typeof sku !== 'string' || sku.length > 40 || !Number.isInteger(quantity) || (quantity as number) < 1) {
      throw new ApiError(400, 'BAD_REQUEST', 'each item needs "sku" (a string) and "quantity" (a whole number >= 1)');
    }
    wanted.set(sku, (wanted.get(sku) ?? 0) + (quantity as number));
  }
  return wanted;
}

const ROUTES = [
  route('GET', '/customers', (db, { query }) => {
    const email = query.get('email')?.trim().toLowerCase();
    if (!email) throw new ApiError(400, 'BAD_REQUEST', 'the "email" query parameter is required');
    const row = db.prepare('SELECT * FROM customers WHERE email = ?').get(email) as CustomerRow | undefined;
    if (!row) throw new ApiError(404, 'CUSTOMER_NOT_FOUND', `no customer with email ${email}`);
    return { body: customerView(row) };
  }),

  route('POST', '/customers/{id}/verify', (db, { params, body }) => {
    // The customer id comes from find_customer: an unknown one means that step was skipped.
    const customer = customerOf(db, params.id!);
    if (!customer) throw violation(404, 'CUSTOMER_NOT_FOUND', `no customer ${params.id}; find the customer first`);
    const postalCode = text(body, 'postal_code', { max: 20 });
    if (customer.failed_verifications >= 5) {
      throw new ApiError(423, 'LOCKED', `customer ${customer.id} is locked after 5 failed verifications`);
    }
    if (postalCode !== customer.postal_code) {
      db.prepare('UPDATE customers SET failed_verifications = failed_verifications + 1 WHERE id = ?').run(customer.id);
      throw new ApiError(401, 'VERIFICATION_FAILED', 'the postal code does not match');
    }
    db.prepare('UPDATE customers SET verified = 1, failed_verifications = 0 WHERE id = ?').run(customer.id);
    const token = issueToken(db, 'vt', customer.id);
    return { body: { customer_id: customer.id, verified: true, verification_token: token } };
  }),

  route('GET', '/customers/{id}/orders', (db, { params, query }) => {
    const customer = customerOf(db, params.id!);
    if (!customer) throw new ApiError(404, 'CUSTOMER_NOT_FOUND', `no customer ${params.id}`);
    const status = query.get('status');
    if (status !== null && !['processing', 'shipped', 'delivered', 'cancelled'].includes(status)) {
      throw new ApiError(400, 'BAD_REQUEST', '"status" must be processing, shipped, delivered or cancelled');
    }
    const rows = db
      .prepare(`SELECT * FROM orders WHERE customer_id = ? ${status ? 'AND status = ?' : ''} ORDER BY id`)
      .all(...(status ? [customer.id, status] : [customer.id])) as OrderRow[];
    return {
      body: {
        customer_id: customer.id,
        orders: rows.map((row) => ({
          order_id: row.id,
          status: row.status,
          placed_on: row.placed_on,
          total: orderView(db, row).total,
        })),
      },
    };
  }),

  route('GET', '/orders/{id}', (db, { params }) => ({ body: orderView(db, orderOf(db, params.id!)) })),

  route('GET', '/orders/{id}/tracking', (db, { params }) => {
    const order = orderOf(db, params.id!);
    if (order.status === 'processing' || order.status === 'cancelled') {
      throw new ApiError(409, 'NOT_SHIPPED', `order ${order.id} is ${order.status}; it has no tracking yet`);
    }
    return {
      body: {
        order_id: order.id,
        status: order.status,
        carrier: order.carrier,
        tracking_number: order.tracking_number,
        shipped_on: order.shipped_on,
        delivered_on: order.delivered_on,
      },
    };
  }),

  route('PATCH', '/orders/{id}/address', (db, request) => {
    const order = orderOf(db, request.params.id!);
    const address = text(request.body, 'address');
    requireCustomerToken(db, request, order);
    if (order.status !== 'processing') {
      throw new ApiError(
        409,
        'ALREADY_SHIPPED',
        `order ${order.id} is ${order.status}; its address can no longer change`,
      );
    }
    db.prepare('UPDATE orders SET address = ? WHERE id = ?').run(address, order.id);
    return { body: orderView(db, orderOf(db, order.id)) };
  }),

  route('POST', '/orders/{id}/cancel', (db, request) => {
    const order = orderOf(db, request.params.id!);
    const reason = text(request.body, 'reason');
    requireCustomerToken(db, request, order);
    if (order.status !== 'processing') {
      throw new ApiError(
        409,
        'NOT_CANCELLABLE',
        `order ${order.id} is ${order.status}; only processing orders can be cancelled`,
      );
    }
    db.prepare("UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE id = ?").run(reason, order.id);
    return { body: orderView(db, orderOf(db, order.id)) };
  }),

  route('POST', '/returns', (db, request, today) => {
    const { body } = request;
    const order = orderOf(db, text(body, 'order_id', { max: 40 }));
    const reason = text(body, 'reason');
    const wanted = returnItems(body);
    requireCustomerToken(db, request, order);
    if (order.status !== 'delivered' || order.delivered_on === null) {
      throw new ApiError(
        409,
        'NOT_DELIVERED',
        `order ${order.id} is ${order.status}; only delivered orders can be returned`,
      );
    }
    const age = daysBetween(order.delivered_on, today);
    if (age > RETURN_WINDOW_DAYS) {
      throw new ApiError(
        409,
        'RETURN_WINDOW_CLOSED',
        `order ${order.id} was delivered ${age} days ago; returns close after ${RETURN_WINDOW_DAYS} days`,
      );
    }
    const ordered = new Map(
      (db.prepare('SELECT sku, quantity FROM order_items WHERE order_id = ?').all(order.id) as ItemRow[]).map(
        (item) => [item.sku, item.quantity],
      ),
    );
    const returned = db.prepare(
      'SELECT COALESCE(SUM(ri.quantity), 0) AS n FROM return_items ri JOIN returns r ON r.id = ri.return_id WHERE r.order_id = ? AND ri.sku = ?',
    );
    for (const [sku, quantity] of wanted) {
      const bought = ordered.get(sku);
      if (bought === undefined) throw new ApiError(422, 'ITEM_NOT_IN_ORDER', `order ${order.id} has no item ${sku}`);
      const already = (returned.get(order.id, sku) as { n: number }).n;
      if (quantity + already > bought) {
        throw new ApiError(
          422,
          'TOO_MANY',
          `order ${order.id} has ${bought} of ${sku}, ${already} already returned; cannot return ${quantity} more`,
        );
      }
    }
    const id = nextId(db, 'returns', 'R');
    db.transaction(() => {
      db.prepare(
        "INSERT INTO returns (id, order_id, reason, status, created_seq) VALUES (?, ?, ?, 'requested', 0)",
      ).run(id, order.id, reason);
      const insert = db.prepare('INSERT INTO return_items (return_id, sku, quantity) VALUES (?, ?, ?)');
      for (const [sku, quantity] of wanted) insert.run(id, sku, quantity);
    })();
    return { status: 201, body: returnView(db, returnOf(db, id)) };
  }),

  route('GET', '/returns/{id}', (db, { params }) => {
    const row = db.prepare('SELECT * FROM returns WHERE id = ?').get(params.id!) as ReturnRow | undefined;
    if (!row) throw new ApiError(404, 'RETURN_NOT_FOUND', `no return ${params.id}`);
    return { body: returnView(db, row) };
  }),

  route('POST', '/returns/{id}/approve', (db, { params }) => {
    const row = returnOf(db, params.id!);
    if (row.status !== 'requested') throw new ApiError(409, 'NOT_APPROVABLE', `return ${row.id} is ${row.status}`);
    db.prepare("UPDATE returns SET status = 'approved' WHERE id = ?").run(row.id);
    return { body: returnView(db, returnOf(db, row.id)) };
  }),

  route('POST', '/refunds', (db, { body }) => {
    const row = returnOf(db, text(body, 'return_id', { max: 40 }));
    const method = text(body, 'method', { max: 40 });
    if (method !== 'original_payment' && method !== 'store_credit') {
      throw new ApiError(400, 'BAD_REQUEST', '"method" must be original_payment or store_credit');
    }
    if (row.status === 'refunded') throw new ApiError(409, 'ALREADY_REFUNDED', `return ${row.id} is already refunded`);
    if (row.status !== 'approved') {
      throw violation(409, 'RETURN_NOT_APPROVED', `return ${row.id} is ${row.status}; approve it first`);
    }
    const { cents } = db
      .prepare(
        `SELECT SUM(ri.quantity * oi.unit_price_cents) AS cents FROM return_items ri
         JOIN order_items oi ON oi.order_id = ? AND oi.sku = ri.sku WHERE ri.return_id = ?`,
      )
      .get(row.order_id, row.id) as { cents: number };
    const id = nextId(db, 'refunds', 'RF');
    db.transaction(() => {
      db.prepare('INSERT INTO refunds (id, return_id, method, amount_cents) VALUES (?, ?, ?, ?)').run(
        id,
        row.id,
        method,
        cents,
      );
      db.prepare("UPDATE returns SET status = 'refunded' WHERE id = ?").run(row.id);
    })();
    return { status: 201, body: { refund_id: id, return_id: row.id, method, amount: money(cents) } };
  }),

  route('GET', '/refunds/{id}', (db, { params }) => {
    const row = db.prepare('SELECT * FROM refunds WHERE id = ?').get(params.id!) as
      | { id: string; return_id: string; method: string; amount_cents: number }
      | undefined;
    if (!row) throw new ApiError(404, 'REFUND_NOT_FOUND', `no refund ${params.id}`);
    return {
      body: { refund_id: row.id, return_id: row.return_id, method: row.method, amount: money(row.amount_cents) },
    };
  }),
];

export const ORDERS: Domain = {
  name: 'orders',
  schema: SCHEMA,
  tables: ['refunds', 'return_items', 'returns', 'order_items', 'orders', 'customers'],
  seed: seedOrders,
  routes: ROUTES,
};
