/**
 * Flight bookings: moving a booking to another flight on the same route.
 *
 *   GET  /flights/bookings?booking_reference=…&last_name=…
 *                       → the booking with a booking_token (404 when reference and name do not match)
 *   GET  /flights/bookings/{ref}/alternatives?date=…&booking_token=…
 *                       → { search_id, flights: [{ flight_number, departs, arrives, seats_left, fare }] }
 *                         (409 basic fares cannot change, nor a flight within 24 hours; 422 a past date)
 *   POST /flights/bookings/{ref}/quote   { booking_token, search_id, new_flight_number }
 *                       → { quote_id, change_fee, fare_difference, total_due } (409 full, 422 not in the search)
 *   POST /flights/bookings/{ref}/change  { booking_token, quote_id } → the booking on its new flight
 *
 * Preconditions (violations when skipped): the booking token of the lookup on every call about the booking; a
 * quote names the search it picks from; a change carries its quote.
 */
import {
  ApiError,
  addDays,
  type Domain,
  isoDate,
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
CREATE TABLE IF NOT EXISTS flights (
  flight_number TEXT NOT NULL, date TEXT NOT NULL, origin TEXT NOT NULL, destination TEXT NOT NULL,
  departs TEXT NOT NULL, arrives TEXT NOT NULL, seats_left INTEGER NOT NULL, fare_cents INTEGER NOT NULL,
  PRIMARY KEY (flight_number, date)
);
CREATE TABLE IF NOT EXISTS bookings (
  reference TEXT PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, flight_number TEXT NOT NULL,
  date TEXT NOT NULL, fare_class TEXT NOT NULL CHECK (fare_class IN ('basic', 'standard', 'flex')),
  paid_cents INTEGER NOT NULL, status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS flight_searches (id TEXT PRIMARY KEY, reference TEXT NOT NULL, date TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS change_quotes (
  id TEXT PRIMARY KEY, reference TEXT NOT NULL, flight_number TEXT NOT NULL, date TEXT NOT NULL,
  change_fee_cents INTEGER NOT NULL, fare_difference_cents INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0
);
`;

type FlightSeed = [number: string, date: string, from: string, to: string, departs: string, arrives: string];
const SEED_FLIGHTS: [...FlightSeed, seats: number, fare: number][] = [
  ['WA210', '2026-01-20', 'AMS', 'LIS', '08:10', '10:55', 12, 16900],
  ['WA210', '2026-01-22', 'AMS', 'LIS', '08:10', '10:55', 30, 15900],
  ['WA210', '2026-01-24', 'AMS', 'LIS', '08:10', '10:55', 4, 18900],
  ['WA214', '2026-01-24', 'AMS', 'LIS', '17:40', '20:25', 9, 21900],
  ['WA210', '2026-01-25', 'AMS', 'LIS', '08:10', '10:55', 0, 17900],
  ['WA214', '2026-01-25', 'AMS', 'LIS', '17:40', '20:25', 2, 23900],
  ['WA118', '2026-01-16', 'LIS', 'AMS', '11:30', '15:05', 20, 14900],
  ['WA118', '2026-01-18', 'LIS', 'AMS', '11:30', '15:05', 18, 14900],
  ['WA305', '2026-01-28', 'BCN', 'CPH', '09:00', '12:05', 25, 24000],
  ['WA305', '2026-01-30', 'BCN', 'CPH', '09:00', '12:05', 7, 26000],
  ['WA309', '2026-01-30', 'BCN', 'CPH', '19:15', '22:20', 15, 21000],
  ['WA412', '2026-02-03', 'CPH', 'BCN', '13:20', '16:35', 40, 9900],
  ['WA412', '2026-02-05', 'CPH', 'BCN', '13:20', '16:35', 40, 9900],
];

const SEED_BOOKINGS: [
  ref: string,
  first: string,
  last: string,
  flight: string,
  date: string,
  fare: string,
  paid: number,
][] = [
  ['K7Q2LM', 'Emma', 'Lindqvist', 'WA210', '2026-01-22', 'standard', 18000],
  ['P4X9RT', 'Julien', 'Moreau', 'WA305', '2026-01-28', 'flex', 26000],
  ['H2M8VD', 'Ana', 'Silva', 'WA118', '2026-01-16', 'standard', 14900],
  ['Z9B3NC', 'Petra', 'Novak', 'WA412', '2026-02-03', 'basic', 9900],
  ['R5T1QW', 'Sean', "O'Brien", 'WA210', '2026-01-20', 'flex', 16900],
];

/** The fee for a change by fare class (basic fares cannot change). */
const CHANGE_FEE_CENTS: Record<string, number> = { standard: 7500, flex: 0 };

function seed(db: Db): void {
  const flight = db.prepare('INSERT INTO flights VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  for (const row of SEED_FLIGHTS) flight.run(...row);
  const booking = db.prepare(
    "INSERT INTO bookings (reference, first_name, last_name, flight_number, date, fare_class, paid_cents, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'confirmed')",
  );
  for (const row of SEED_BOOKINGS) booking.run(...row);
}

interface BookingRow {
  reference: string;
  first_name: string;
  last_name: string;
  flight_number: string;
  date: string;
  fare_class: string;
  paid_cents: number;
  status: string;
}
interface FlightRow {
  flight_number: string;
  date: string;
  origin: string;
  destination: string;
  departs: string;
  arrives: string;
  seats_left: number;
  fare_cents: number;
}

function flightOf(db: Db, number: string, date: string): FlightRow {
  return db.prepare('SELECT * FROM flights WHERE flight_number = ? AND date = ?').get(number, date) as FlightRow;
}

/** A reference of the request's path, with the booking token of its lookup (a violation without). */
function bookingFor(db: Db, request: Request): BookingRow {
  const reference = request.params.ref!.toUpperCase();
  const row = db.prepare('SELECT * FROM bookings WHERE reference = ?').get(reference) as BookingRow | undefined;
  requireToken(db, request, 'booking_token', 'bk', reference, 'find the booking (GET /flights/bookings)');
  return row!;
}

function bookingView(db: Db, booking: BookingRow) {
  const flight = flightOf(db, booking.flight_number, booking.date);
  return {
    booking_reference: booking.reference,
    passenger: `${booking.first_name} ${booking.last_name}`,
    flight_number: booking.flight_number,
    origin: flight.origin,
    destination: flight.destination,
    date: booking.date,
    departs: flight.departs,
    fare_class: booking.fare_class,
    status: booking.status,
  };
}

const ROUTES = [
  route('GET', '/flights/bookings', (db, { query }) => {
    const reference = queryText(query, 'booking_reference', { max: 12 }).toUpperCase();
    const lastName = queryText(query, 'last_name', { max: 80 });
    const booking = db.prepare('SELECT * FROM bookings WHERE reference = ?').get(reference) as BookingRow | undefined;
    if (!booking || booking.last_name.toLowerCase() !== lastName.toLowerCase()) {
      throw new ApiError(404, 'BOOKING_NOT_FOUND', `no booking ${reference} for the name ${lastName}`);
    }
    return { body: { ...bookingView(db, booking), booking_token: issueToken(db, 'bk', booking.reference) } };
  }),

  route('GET', '/flights/bookings/{ref}/alternatives', (db, request, today) => {
    const booking = bookingFor(db, request);
    const date = isoDate(queryText(request.query, 'date', { max: 10 }), 'date');
    if (booking.fare_class === 'basic') {
      throw new ApiError(409, 'FARE_NOT_CHANGEABLE', `booking ${booking.reference} is a basic fare; it cannot change`);
    }
    if (booking.date <= addDays(today, 1)) {
      throw new ApiError(
        409,
        'TOO_CLOSE_TO_DEPARTURE',
        `booking ${booking.reference} departs on ${booking.date}; changes close 24 hours before departure`,
      );
    }
    if (date <= today) throw new ApiError(422, 'DATE_IN_PAST', `${date} is not after today (${today})`);
    const current = flightOf(db, booking.flight_number, booking.date);
    const flights = db
      .prepare('SELECT * FROM flights WHERE origin = ? AND destination = ? AND date = ? ORDER BY departs')
      .all(current.origin, current.destination, date) as FlightRow[];
    const searchId = nextId(db, 'flight_searches', 'SR');
    db.prepare('INSERT INTO flight_searches (id, reference, date) VALUES (?, ?, ?)').run(
      searchId,
      booking.reference,
      date,
    );
    return {
      body: {
        search_id: searchId,
        booking_reference: booking.reference,
        origin: current.origin,
        destination: current.destination,
        date,
        flights: flights
          .filter((flight) => !(flight.flight_number === booking.flight_number && flight.date === booking.date))
          .map((flight) => ({
            flight_number: flight.flight_number,
            departs: flight.departs,
            arrives: flight.arrives,
            seats_left: flight.seats_left,
            fare: money(flight.fare_cents),
          })),
      },
    };
  }),

  route('POST', '/flights/bookings/{ref}/quote', (db, request) => {
    const booking = bookingFor(db, request);
    const flightNumber = text(request.body, 'new_flight_number', { max: 10 }).toUpperCase();
    const searchId = request.body.search_id;
    if (typeof searchId !== 'string' || searchId === '') {
      throw violation(409, 'SEARCH_REQUIRED', 'search the alternatives first and pass their search_id');
    }
    const search = db.prepare('SELECT * FROM flight_searches WHERE id = ?').get(searchId) as
      | { reference: string; date: string }
      | undefined;
    if (!search || search.reference !== booking.reference) {
      throw violation(409, 'INVALID_SEARCH', `${searchId} is not a search for booking ${booking.reference}`);
    }
    const current = flightOf(db, booking.flight_number, booking.date);
    const flight = flightOf(db, flightNumber, search.date);
    if (!flight || flight.origin !== current.origin || flight.destination !== current.destination) {
      throw new ApiError(
        422,
        'FLIGHT_NOT_IN_SEARCH',
        `${flightNumber} on ${search.date} is not among the alternatives of ${searchId}`,
      );
    }
    if (flight.seats_left < 1) {
      throw new ApiError(409, 'FLIGHT_FULL', `${flightNumber} on ${search.date} has no seats left`);
    }
    const fee = CHANGE_FEE_CENTS[booking.fare_class] ?? 0;
    const difference = Math.max(0, flight.fare_cents - booking.paid_cents);
    const quoteId = nextId(db, 'change_quotes', 'Q');
    db.prepare(
      'INSERT INTO change_quotes (id, reference, flight_number, date, change_fee_cents, fare_difference_cents) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(quoteId, booking.reference, flight.flight_number, flight.date, fee, difference);
    return {
      status: 201,
      body: {
        quote_id: quoteId,
        booking_reference: booking.reference,
        new_flight_number: flight.flight_number,
        new_date: flight.date,
        departs: flight.departs,
        change_fee: money(fee),
        fare_difference: money(difference),
        total_due: money(fee + difference),
      },
    };
  }),

  route('POST', '/flights/bookings/{ref}/change', (db, request) => {
    const booking = bookingFor(db, request);
    const quoteId = request.body.quote_id;
    if (typeof quoteId !== 'string' || quoteId === '') {
      throw violation(409, 'QUOTE_REQUIRED', 'get a change quote first and pass its quote_id');
    }
    const quote = db.prepare('SELECT * FROM change_quotes WHERE id = ?').get(quoteId) as
      | {
          reference: string;
          flight_number: string;
          date: string;
          change_fee_cents: number;
          fare_difference_cents: number;
          used: number;
        }
      | undefined;
    if (!quote || quote.reference !== booking.reference) {
      throw violation(409, 'INVALID_QUOTE', `${quoteId} is not a quote for booking ${booking.reference}`);
    }
    if (quote.used === 1) throw new ApiError(409, 'QUOTE_USED', `quote ${quoteId} has already been used`);
    const flight = flightOf(db, quote.flight_number, quote.date);
    if (flight.seats_left < 1) {
      throw new ApiError(409, 'FLIGHT_FULL', `${flight.flight_number} on ${flight.date} has no seats left`);
    }
    const charged = quote.change_fee_cents + quote.fare_difference_cents;
    db.transaction(() => {
      db.prepare('UPDATE flights SET seats_left = seats_left + 1 WHERE flight_number = ? AND date = ?').run(
        booking.flight_number,
        booking.date,
      );
      db.prepare('UPDATE flights SET seats_left = seats_left - 1 WHERE flight_number = ? AND date = ?').run(
        flight.flight_number,
        flight.date,
      );
      db.prepare(
        "UPDATE bookings SET flight_number = ?, date = ?, status = 'changed', paid_cents = paid_cents + ? WHERE reference = ?",
      ).run(flight.flight_number, flight.date, quote.fare_difference_cents, booking.reference);
      db.prepare('UPDATE change_quotes SET used = 1 WHERE id = ?').run(quoteId);
    })();
    const changed = db.prepare('SELECT * FROM bookings WHERE reference = ?').get(booking.reference) as BookingRow;
    return { body: { ...bookingView(db, changed), charged: money(charged) } };
  }),
];

export const FLIGHTS: Domain = {
  name: 'flights',
  schema: SCHEMA,
  tables: ['change_quotes', 'flight_searches', 'bookings', 'flights'],
  seed,
  routes: ROUTES,
};
