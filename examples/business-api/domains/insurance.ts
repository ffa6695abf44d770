/**
 * Insurance claims: filing a claim on a home, car or travel policy.
 *
 *   POST /insurance/policies/lookup        { policy_number, date_of_birth }
 *                                          → the policy with a verification_token (401 wrong birth date, 404)
 *   GET  /insurance/policies/{number}/coverage?incident_type=…&verification_token=…
 *                                          → { coverage_id, covered: true, deductible, limit }
 *                                            (409 NOT_COVERED, 409 POLICY_INACTIVE)
 *   POST /insurance/claims                 { policy_number, coverage_id, incident_date, description,
 *                                            verification_token } → { claim_id, status: awaiting_evidence }
 *                                            (422 a future date or before the cover, 409 reported too late)
 *   POST /insurance/claims/{id}/evidence   { evidence_description, verification_token } → { status: under_review }
 *   GET  /insurance/claims/{id}?verification_token=…   a claim's status
 *
 * Preconditions (violations when skipped): the token of the lookup for everything about the policy; a claim
 * carries the coverage_id of a coverage check of its policy; evidence goes to a claim that exists.
 */
import {
  ApiError,
  addDays,
  type Domain,
  isoDate,
  issueToken,
  money,
  nextId,
  oneOf,
  queryText,
  type Request,
  requireToken,
  route,
  text,
  violation,
} from '../http-kit.js';
import type { Db } from '../store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS policies (
  number TEXT PRIMARY KEY, holder TEXT NOT NULL, date_of_birth TEXT NOT NULL,
  product TEXT NOT NULL CHECK (product IN ('home', 'car', 'travel')), starts_on TEXT NOT NULL, ends_on TEXT NOT NULL,
  deductible_cents INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS coverage_checks (
  id TEXT PRIMARY KEY, policy_number TEXT NOT NULL REFERENCES policies(number), incident_type TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
  id TEXT PRIMARY KEY, policy_number TEXT NOT NULL REFERENCES policies(number), incident_type TEXT NOT NULL,
  incident_date TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL, payout_cents INTEGER
);
CREATE TABLE IF NOT EXISTS claim_evidence (
  claim_id TEXT NOT NULL REFERENCES claims(id), seq INTEGER NOT NULL, description TEXT NOT NULL,
  PRIMARY KEY (claim_id, seq)
);
`;

const SEED_POLICIES: [
  number: string,
  holder: string,
  birth: string,
  product: string,
  from: string,
  to: string,
  deductible: number,
][] = [
  ['HP-30001', 'Olivia Brown', '1984-06-02', 'home', '2025-03-01', '2026-02-28', 25000],
  ['CP-40002', 'Marcus Lee', '1979-09-15', 'car', '2025-07-01', '2026-06-30', 50000],
  ['TP-50003', 'Sofia Rossi', '1992-12-24', 'travel', '2025-12-01', '2026-03-01', 10000],
  ['HP-30004', 'Daniel Kim', '1970-01-30', 'home', '2025-01-01', '2025-12-31', 25000],
];

/** What each product covers, with the limit per claim; anything else is not covered. */
const COVER: Record<string, Record<string, number>> = {
  home: { water_damage: 2_000_000, fire: 25_000_000, theft: 1_000_000, storm: 1_500_000 },
  car: { collision: 3_000_000, theft: 2_500_000, windscreen: 100_000, vandalism: 500_000 },
  travel: { lost_luggage: 150_000, trip_cancellation: 300_000, medical: 10_000_000 },
};
const INCIDENT_TYPES = [...new Set(Object.values(COVER).flatMap((types) => Object.keys(types)))].concat('flood');

/** Claims must be reported within this many days of the incident. */
const REPORTING_DAYS = 90;

function seed(db: Db): void {
  const policy = db.prepare('INSERT INTO policies VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const row of SEED_POLICIES) policy.run(...row);
  db.prepare(
    "INSERT INTO claims VALUES ('CL-0001', 'CP-40002', 'collision', '2025-12-20', 'Rear-ended at a junction', 'approved', 145000)",
  ).run();
  db.prepare(
    "INSERT INTO claim_evidence VALUES ('CL-0001', 1, 'Photos of the rear bumper and the other driver''s details')",
  ).run();
}

interface PolicyRow {
  number: string;
  holder: string;
  date_of_birth: string;
  product: string;
  starts_on: string;
  ends_on: string;
  deductible_cents: number;
}
interface ClaimRow {
  id: string;
  policy_number: string;
  incident_type: string;
  incident_date: string;
  description: string;
  status: string;
  payout_cents: number | null;
}

function policyOf(db: Db, number: string): PolicyRow | undefined {
  return db.prepare('SELECT * FROM policies WHERE number = ?').get(number.toUpperCase()) as PolicyRow | undefined;
}

function requirePolicyToken(db: Db, request: Request, policyNumber: string): void {
  requireToken(
    db,
    request,
    'verification_token',
    'pol',
    policyNumber,
    'look the policy up (POST /insurance/policies/lookup)',
  );
}

function claimView(db: Db, claim: ClaimRow) {
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM claim_evidence WHERE claim_id = ?').get(claim.id) as {
    n: number;
  };
  return {
    claim_id: claim.id,
    policy_number: claim.policy_number,
    incident_type: claim.incident_type,
    incident_date: claim.incident_date,
    status: claim.status,
    evidence_count: n,
    payout: claim.payout_cents === null ? null : money(claim.payout_cents),
  };
}

const ROUTES = [
  route('POST', '/insurance/policies/lookup', (db, { body }, today) => {
    const number = text(body, 'policy_number', { max: 20 }).toUpperCase();
    const dateOfBirth = text(body, 'date_of_birth', { max: 20 });
    const policy = policyOf(db, number);
    if (!policy) throw new ApiError(404, 'POLICY_NOT_FOUND', `no policy ${number}`);
    if (policy.date_of_birth !== dateOfBirth) {
      throw new ApiError(401, 'VERIFICATION_FAILED', `the date of birth does not match policy ${number}`);
    }
    return {
      body: {
        policy_number: policy.number,
        holder: policy.holder,
        product: policy.product,
        status: policy.ends_on >= today ? 'active' : 'lapsed',
        valid_until: policy.ends_on,
        verification_token: issueToken(db, 'pol', policy.number),
      },
    };
  }),

  route('GET', '/insurance/policies/{number}/coverage', (db, request, today) => {
    const number = request.params.number!.toUpperCase();
    requirePolicyToken(db, request, number);
    const policy = policyOf(db, number)!;
    const incidentType = oneOf(queryText(request.query, 'incident_type', { max: 40 }), INCIDENT_TYPES, 'incident_type');
    if (policy.ends_on < today) {
      throw new ApiError(409, 'POLICY_INACTIVE', `policy ${number} ended on ${policy.ends_on}`);
    }
    const limit = COVER[policy.product]?.[incidentType];
    if (limit === undefined) {
      const covered = Object.keys(COVER[policy.product] ?? {}).join(', ');
      throw new ApiError(
        409,
        'NOT_COVERED',
        `a ${policy.product} policy does not cover ${incidentType}; it covers ${covered}`,
      );
    }
    const id = nextId(db, 'coverage_checks', 'CV');
    db.prepare('INSERT INTO coverage_checks (id, policy_number, incident_type) VALUES (?, ?, ?)').run(
      id,
      number,
      incidentType,
    );
    return {
      body: {
        coverage_id: id,
        policy_number: number,
        incident_type: incidentType,
        covered: true,
        deductible: money(policy.deductible_cents),
        limit: money(limit),
      },
    };
  }),

  route('POST', '/insurance/claims', (db, request, today) => {
    const { body } = request;
    const number = text(body, 'policy_number', { max: 20 }).toUpperCase();
    const incidentDate = isoDate(text(body, 'incident_date', { max: 10 }), 'incident_date');
    const description = text(body, 'description', { max: 2000 });
    requirePolicyToken(db, request, number);
    const coverageId = body.coverage_id;
    if (typeof coverageId !== 'string' || coverageId === '') {
      throw violation(409, 'COVERAGE_CHECK_REQUIRED', 'check the coverage first and pass its coverage_id');
    }
    const coverage = db.prepare('SELECT * FROM coverage_checks WHERE id = ?').get(coverageId) as
      | { policy_number: string; incident_type: string }
      | undefined;
    if (!coverage || coverage.policy_number !== number) {
      throw violation(409, 'INVALID_COVERAGE', `${coverageId} is not a coverage check of policy ${number}`);
    }
    const policy = policyOf(db, number)!;
    if (incidentDate > today) throw new ApiError(422, 'INCIDENT_IN_FUTURE', `${incidentDate} is after today`);
    if (incidentDate < policy.starts_on || incidentDate > policy.ends_on) {
      throw new ApiError(
        422,
        'OUTSIDE_COVER',
        `policy ${number} covers ${policy.starts_on} to ${policy.ends_on}, not ${incidentDate}`,
      );
    }
    if (incidentDate < addDays(today, -REPORTING_DAYS)) {
      throw new ApiError(
        409,
        'REPORTED_TOO_LATE',
        `claims must be reported within ${REPORTING_DAYS} days of the incident (${incidentDate})`,
      );
    }
    const duplicate = db
      .prepare('SELECT id FROM claims WHERE policy_number = ? AND incident_type = ? AND incident_date = ?')
      .get(number, coverage.incident_type, incidentDate) as { id: string } | undefined;
    if (duplicate) {
      throw new ApiError(409, 'DUPLICATE_CLAIM', `claim ${duplicate.id} already covers this incident`);
    }
    const id = nextId(db, 'claims', 'CL');
    db.prepare(
      "INSERT INTO claims (id, policy_number, incident_type, incident_date, description, status) VALUES (?, ?, ?, ?, ?, 'awaiting_evidence')",
    ).run(id, number, coverage.incident_type, incidentDate, description);
    const claim = db.prepare('SELECT * FROM claims WHERE id = ?').get(id) as ClaimRow;
    return { status: 201, body: { ...claimView(db, claim), deductible: money(policy.deductible_cents) } };
  }),

  route('POST', '/insurance/claims/{id}/evidence', (db, request) => {
    const claim = db.prepare('SELECT * FROM claims WHERE id = ?').get(request.params.id!.toUpperCase()) as
      | ClaimRow
      | undefined;
    // Evidence follows a claim that file_claim made: an unknown claim id means that step was skipped.
    if (!claim) throw violation(404, 'CLAIM_NOT_FOUND', `no claim ${request.params.id}; file the claim first`);
    const description = text(request.body, 'evidence_description', { max: 2000 });
    requirePolicyToken(db, request, claim.policy_number);
    if (claim.status === 'approved' || claim.status === 'rejected') {
      throw new ApiError(409, 'CLAIM_CLOSED', `claim ${claim.id} is ${claim.status}; it takes no more evidence`);
    }
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM claim_evidence WHERE claim_id = ?').get(claim.id) as {
      n: number;
    };
    if (n >= 20) throw new ApiError(409, 'TOO_MUCH_EVIDENCE', `claim ${claim.id} already has 20 pieces of evidence`);
    db.transaction(() => {
      db.prepare('INSERT INTO claim_evidence (claim_id, seq, description) VALUES (?, ?, ?)').run(
        claim.id,
        n + 1,
        description,
      );
      db.prepare("UPDATE claims SET status = 'under_review' WHERE id = ?").run(claim.id);
    })();
    const updated = db.prepare('SELECT * FROM claims WHERE id = ?').get(claim.id) as ClaimRow;
    return { body: claimView(db, updated) };
  }),

  route('GET', '/insurance/claims/{id}', (db, request) => {
    const claim = db.prepare('SELECT * FROM claims WHERE id = ?').get(request.params.id!.toUpperCase()) as
      | ClaimRow
      | undefined;
    if (!claim) throw new ApiError(404, 'CLAIM_NOT_FOUND', `no claim ${request.params.id}`);
    requirePolicyToken(db, request, claim.policy_number);
    return { body: claimView(db, claim) };
  }),
];

export const INSURANCE: Domain = {
  name: 'insurance',
  schema: SCHEMA,
  tables: ['claim_evidence', 'claims', 'coverage_checks', 'policies'],
  seed,
  routes: ROUTES,
};
