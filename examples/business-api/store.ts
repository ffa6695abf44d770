/**
 * The business API's state in SQLite (better-sqlite3): customers, orders, returns, refunds and a request counter
 * per endpoint. Seed data and ids are deterministic (`R-0001`, `RF-0001`, a fixed "today"), so traces recorded
 * against it replay and distil the same way every time.
 */
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** The service's idea of today (ISO date): return windows are counted from it, not from the wall clock. */
export const DEFAULT_TODAY = '2026-01-15';
/** Days after delivery during which an order may be returned. */
export const RETURN_WINDOW_DAYS = 30;

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
CREATE TABLE IF NOT EXISTS request_counts (endpoint TEXT PRIMARY KEY, count INTEGER NOT NULL);
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

const ORDERS: SeedOrder[] = [
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

export function openDb(path: string): Db {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const seeded = db.prepare('SELECT COUNT(*) AS n FROM customers').get() as { n: number };
  if (seeded.n === 0) seed(db);
  return db;
}

/** Back to the seed data, with the request counters at zero. */
export function reseed(db: Db): void {
  db.transaction(() => {
    for (const table of [
      'refunds',
      'return_items',
      'returns',
      'order_items',
      'orders',
      'customers',
      'request_counts',
    ]) {
      db.exec(`DELETE FROM ${table}`);
    }
    seed(db);
  })();
}

function seed(db: Db): void {
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
    for (const seedOrder of ORDERS) {
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

export function countRequest(db: Db, endpoint: string): void {
  db.prepare(
    'INSERT INTO request_counts (endpoint, count) VALUES (?, 1) ON CONFLICT (endpoint) DO UPDATE SET count = count + 1',
  ).run(endpoint);
}

export interface ApiStats {
  /** Requests to the service's endpoints (not `/_…`), by `METHOD /pattern`, e.g. `POST /refunds`. */
  readonly byEndpoint: Readonly<Record<string, number>>;
  readonly total: number;
}

export function readStats(db: Db): ApiStats {
  const rows = db.prepare('SELECT endpoint, count FROM request_counts ORDER BY endpoint').all() as {
    endpoint: string;
    count: number;
  }[];
  return {
    byEndpoint: Object.fromEntries(rows.map((row) => [row.endpoint, row.count])),
    total: rows.reduce((sum, row) => sum + row.count, 0),
  };
}
