/**
 * Clinic appointments: booking (or cancelling) a visit to a department's doctor.
 *
 *   GET  /clinic/patients?last_name=…&date_of_birth=…   → { patient_id, first_name, last_name } (404 unknown)
 *   POST /clinic/patients              { first_name, last_name, date_of_birth, phone } → 201 { patient_id }
 *                                      (409 already registered)
 *   GET  /clinic/departments           departments with their doctors
 *   GET  /clinic/slots?department=…&date=…   → { slot_id (the earliest free), slots: [...] } (409 none free)
 *   POST /clinic/appointments          { patient_id, slot_id, reason } → 201 { appointment_id, doctor, start }
 *                                      (409 taken, 409 a second visit to the department that day)
 *   POST /clinic/appointments/{id}/cancel   { patient_id } (409 within 24 hours, or already cancelled)
 *
 * Preconditions (violations when skipped): a booking names a patient that find or register returned and a slot
 * that the slot search returned (slot ids are opaque); a cancellation is by the appointment's own patient.
 */
import { createHash } from 'node:crypto';
import { ApiError, addDays, type Domain, isoDate, nextId, queryText, route, text, violation } from '../http-kit.js';
import type { Db } from '../store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS patients (
  id TEXT PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, date_of_birth TEXT NOT NULL,
  phone TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS departments (code TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS doctors (id TEXT PRIMARY KEY, name TEXT NOT NULL, department TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS slots (
  id TEXT PRIMARY KEY, doctor_id TEXT NOT NULL REFERENCES doctors(id), date TEXT NOT NULL, start TEXT NOT NULL,
  booked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS appointments (
  id TEXT PRIMARY KEY, patient_id TEXT NOT NULL REFERENCES patients(id), slot_id TEXT NOT NULL REFERENCES slots(id),
  reason TEXT NOT NULL, status TEXT NOT NULL
);
`;

const SEED_PATIENTS: [id: string, first: string, last: string, birth: string, phone: string][] = [
  ['P-8001', 'Hannah', 'Becker', '1990-05-14', '5550201'],
  ['P-8002', 'George', 'Adeyemi', '1958-08-03', '5550202'],
  ['P-8003', 'Iris', 'Nakamura', '2001-10-27', '5550203'],
];
const SEED_DEPARTMENTS: [code: string, name: string][] = [
  ['cardiology', 'Cardiology'],
  ['dermatology', 'Dermatology'],
  ['general_practice', 'General practice'],
];
const SEED_DOCTORS: [id: string, name: string, department: string][] = [
  ['D-01', 'Dr. Elena Marsh', 'cardiology'],
  ['D-02', 'Dr. Omar Haddad', 'dermatology'],
  ['D-03', 'Dr. Priya Nair', 'general_practice'],
  ['D-04', 'Dr. Lukas Berg', 'general_practice'],
];
/** Each doctor's free times on some days; the dermatologist is fully booked on the 20th. */
const SEED_SLOTS: [doctor: string, date: string, starts: string[], booked?: boolean][] = [
  ['D-01', '2026-01-19', ['09:00', '09:30', '10:00']],
  ['D-01', '2026-01-21', ['14:00', '14:30']],
  ['D-02', '2026-01-20', ['11:00', '11:30'], true],
  ['D-02', '2026-01-22', ['15:00']],
  ['D-03', '2026-01-16', ['08:30', '09:00']],
  ['D-03', '2026-01-19', ['10:00', '10:30']],
  ['D-04', '2026-01-19', ['13:00']],
];

/** An opaque id: a slot is booked by what the slot search returned, not by a guess. */
const slotId = (doctor: string, date: string, start: string): string =>
  `SL-${createHash('sha256').update(`${doctor}|${date}|${start}`).digest('hex').slice(0, 8)}`;

function seed(db: Db): void {
  const patient = db.prepare('INSERT INTO patients VALUES (?, ?, ?, ?, ?)');
  for (const row of SEED_PATIENTS) patient.run(...row);
  const department = db.prepare('INSERT INTO departments VALUES (?, ?)');
  for (const row of SEED_DEPARTMENTS) department.run(...row);
  const doctor = db.prepare('INSERT INTO doctors VALUES (?, ?, ?)');
  for (const row of SEED_DOCTORS) doctor.run(...row);
  const slot = db.prepare('INSERT INTO slots (id, doctor_id, date, start, booked) VALUES (?, ?, ?, ?, ?)');
  for (const [doctorId, date, starts, booked] of SEED_SLOTS) {
    for (const start of starts) slot.run(slotId(doctorId, date, start), doctorId, date, start, booked ? 1 : 0);
  }
  // George already has a check-up on the 19th: the cancellation path has something to cancel.
  const georgeSlot = slotId('D-03', '2026-01-19', '10:00');
  db.prepare('UPDATE slots SET booked = 1 WHERE id = ?').run(georgeSlot);
  db.prepare("INSERT INTO appointments VALUES ('A-0001', 'P-8002', ?, 'Annual check-up', 'booked')").run(georgeSlot);
}

interface PatientRow {
  id: string;
  first_name: string;
  last_name: string;
  date_of_birth: string;
  phone: string;
}
interface SlotRow {
  id: string;
  doctor_id: string;
  date: string;
  start: string;
  booked: number;
  doctor: string;
  department: string;
}

const SLOT_QUERY = `SELECT s.*, d.name AS doctor, d.department FROM slots s JOIN doctors d ON d.id = s.doctor_id`;

function patientView(row: PatientRow) {
  return {
    patient_id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
  };
}

function appointmentView(db: Db, id: string) {
  const row = db.prepare('SELECT * FROM appointments WHERE id = ?').get(id) as {
    id: string;
    patient_id: string;
    slot_id: string;
    reason: string;
    status: string;
  };
  const slot = db.prepare(`${SLOT_QUERY} WHERE s.id = ?`).get(row.slot_id) as SlotRow;
  return {
    appointment_id: row.id,
    patient_id: row.patient_id,
    department: slot.department,
    doctor: slot.doctor,
    date: slot.date,
    start: slot.start,
    reason: row.reason,
    status: row.status,
  };
}

const ROUTES = [
  route('GET', '/clinic/patients', (db, { query }) => {
    const lastName = queryText(query, 'last_name', { max: 80 });
    const dateOfBirth = isoDate(queryText(query, 'date_of_birth', { max: 10 }), 'date_of_birth');
    const row = db
      .prepare('SELECT * FROM patients WHERE lower(last_name) = lower(?) AND date_of_birth = ?')
      .get(lastName, dateOfBirth) as PatientRow | undefined;
    if (!row) throw new ApiError(404, 'PATIENT_NOT_FOUND', `no patient ${lastName} born ${dateOfBirth}`);
    return { body: patientView(row) };
  }),

  route('POST', '/clinic/patients', (db, { body }) => {
    const firstName = text(body, 'first_name', { max: 80 });
    const lastName = text(body, 'last_name', { max: 80 });
    const dateOfBirth = isoDate(text(body, 'date_of_birth', { max: 10 }), 'date_of_birth');
    const phone = text(body, 'phone', { max: 30 }).replace(/[^\d+]/g, '');
    const existing = db
      .prepare('SELECT id FROM patients WHERE lower(last_name) = lower(?) AND date_of_birth = ?')
      .get(lastName, dateOfBirth) as { id: string } | undefined;
    if (existing) {
      throw new ApiError(409, 'ALREADY_REGISTERED', `${firstName} ${lastName} is already registered`);
    }
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM patients').get() as { n: number };
    const id = `P-${8001 + n}`;
    db.prepare('INSERT INTO patients VALUES (?, ?, ?, ?, ?)').run(id, firstName, lastName, dateOfBirth, phone);
    return {
      status: 201,
      body: {
        ...patientView(db.prepare('SELECT * FROM patients WHERE id = ?').get(id) as PatientRow),
        registered: true,
      },
    };
  }),

  route('GET', '/clinic/departments', (db) => {
    const departments = db.prepare('SELECT * FROM departments ORDER BY code').all() as { code: string; name: string }[];
    const doctors = db.prepare('SELECT id, name FROM doctors WHERE department = ? ORDER BY id');
    return {
      body: {
        departments: departments.map((department) => ({
          department: department.code,
          name: department.name,
          doctors: (doctors.all(department.code) as { id: string; name: string }[]).map((doctor) => ({
            doctor_id: doctor.id,
            name: doctor.name,
          })),
        })),
      },
    };
  }),

  route('GET', '/clinic/slots', (db, { query }, today) => {
    const department = queryText(query, 'department', { max: 40 }).toLowerCase();
    const date = isoDate(queryText(query, 'date', { max: 10 }), 'date');
    if (!db.prepare('SELECT 1 FROM departments WHERE code = ?').get(department)) {
      const known = (db.prepare('SELECT code FROM departments ORDER BY code').all() as { code: string }[])
        .map((row) => row.code)
        .join(', ');
      throw new ApiError(404, 'DEPARTMENT_NOT_FOUND', `no department ${department}; there are ${known}`);
    }
    if (date <= today) throw new ApiError(422, 'DATE_IN_PAST', `appointments start tomorrow; ${date} is too early`);
    const free = db
      .prepare(`${SLOT_QUERY} WHERE d.department = ? AND s.date = ? AND s.booked = 0 ORDER BY s.start, d.id`)
      .all(department, date) as SlotRow[];
    if (free.length === 0) {
      throw new ApiError(409, 'NO_SLOTS', `${department} has no free slot on ${date}; try another day`);
    }
    return {
      body: {
        department,
        date,
        slot_id: free[0]!.id,
        slots: free.map((slot) => ({ slot_id: slot.id, doctor: slot.doctor, start: slot.start })),
      },
    };
  }),

  route('POST', '/clinic/appointments', (db, { body }) => {
    const patientId = text(body, 'patient_id', { max: 20 });
    const id = text(body, 'slot_id', { max: 20 });
    const reason = text(body, 'reason', { max: 500 });
    if (!db.prepare('SELECT 1 FROM patients WHERE id = ?').get(patientId)) {
      throw violation(404, 'PATIENT_NOT_FOUND', `no patient ${patientId}; find or register the patient first`);
    }
    const slot = db.prepare(`${SLOT_QUERY} WHERE s.id = ?`).get(id) as SlotRow | undefined;
    if (!slot) throw violation(404, 'SLOT_NOT_FOUND', `no slot ${id}; search the free slots first`);
    if (slot.booked === 1) throw new ApiError(409, 'SLOT_TAKEN', `the ${slot.start} slot on ${slot.date} is taken`);
    const sameDay = db
      .prepare(
        `SELECT a.id FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN doctors d ON d.id = s.doctor_id
         WHERE a.patient_id = ? AND a.status = 'booked' AND s.date = ? AND d.department = ?`,
      )
      .get(patientId, slot.date, slot.department) as { id: string } | undefined;
    if (sameDay) {
      throw new ApiError(
        409,
        'DOUBLE_BOOKING',
        `${patientId} already has appointment ${sameDay.id} in ${slot.department} on ${slot.date}`,
      );
    }
    const appointmentId = nextId(db, 'appointments', 'A');
    db.transaction(() => {
      db.prepare('UPDATE slots SET booked = 1 WHERE id = ?').run(slot.id);
      db.prepare("INSERT INTO appointments VALUES (?, ?, ?, ?, 'booked')").run(
        appointmentId,
        patientId,
        slot.id,
        reason,
      );
    })();
    return { status: 201, body: appointmentView(db, appointmentId) };
  }),

  route('POST', '/clinic/appointments/{id}/cancel', (db, { params, body }, today) => {
    const patientId = text(body, 'patient_id', { max: 20 });
    const row = db.prepare('SELECT * FROM appointments WHERE id = ?').get(params.id!.toUpperCase()) as
      | { id: string; patient_id: string; slot_id: string; status: string }
      | undefined;
    if (!row) throw new ApiError(404, 'APPOINTMENT_NOT_FOUND', `no appointment ${params.id}`);
    if (row.patient_id !== patientId) {
      throw violation(
        403,
        'NOT_YOUR_APPOINTMENT',
        `appointment ${row.id} is not ${patientId}'s; find the patient first`,
      );
    }
    if (row.status === 'cancelled') throw new ApiError(409, 'ALREADY_CANCELLED', `appointment ${row.id} is cancelled`);
    const slot = db.prepare('SELECT * FROM slots WHERE id = ?').get(row.slot_id) as SlotRow;
    if (slot.date <= addDays(today, 1)) {
      throw new ApiError(409, 'TOO_LATE_TO_CANCEL', `appointment ${row.id} is within 24 hours; call the clinic`);
    }
    db.transaction(() => {
      db.prepare("UPDATE appointments SET status = 'cancelled' WHERE id = ?").run(row.id);
      db.prepare('UPDATE slots SET booked = 0 WHERE id = ?').run(row.slot_id);
    })();
    return { body: appointmentView(db, row.id) };
  }),
];

export const CLINIC: Domain = {
  name: 'clinic',
  schema: SCHEMA,
  tables: ['appointments', 'slots', 'doctors', 'departments', 'patients'],
  seed,
  routes: ROUTES,
};
