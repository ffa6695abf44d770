/**
 * The business API's domains for the procedures (bank cards, flights, insurance, mobile plans, clinic) against the real
 * server: each happy path, each business rule, and the violation count — a state-changing call without what its
 * precondition returned (a token, a quote, an eligibility, a slot) is refused and counted, while business refusals
 * (a full flight, an uncovered incident) are not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';

let api: BusinessApi;
beforeAll(async () => {
  api = await startBusinessApi();
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  api.reset();
});

type Body = Record<string, unknown> & { error?: { code: string; message: string } };
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Body };
}
const code = (reply: { body: Body }) => reply.body.error?.code;

describe('bank cards', () => {
  async function verified(phone = '555 0101', dateOfBirth = '1988-04-12') {
    const reply = await call('POST', '/bank/verify', { phone, date_of_birth: dateOfBirth });
    expect(reply.status).toBe(200);
    return reply.body as { customer_id: string; verification_token: string };
  }

  it('verifies, blocks, quotes delivery and replaces, each step needing the one before', async () => {
    const { customer_id: customerId, verification_token: token } = await verified();
    expect(customerId).toBe('B-2001');
    expect(code(await call('GET', `/bank/customers/${customerId}/cards`))).toBe('NOT_VERIFIED');
    const cards = await call('GET', `/bank/customers/${customerId}/cards?verification_token=${token}`);
    expect(cards.body.cards).toHaveLength(2);
    // Delivery options before the card is blocked, and a replacement without its quote, are violations.
    expect(code(await call('GET', `/bank/cards/CARD-01/delivery-options?verification_token=${token}`))).toBe(
      'CARD_NOT_BLOCKED',
    );
    const blocked = await call('POST', '/bank/cards/block', {
      customer_id: customerId,
      card_last4: '4821',
      reason: 'lost',
      verification_token: token,
    });
    expect(blocked.body).toMatchObject({ card_id: 'CARD-01', status: 'blocked', blocked_reason: 'lost' });
    const replace = (body: object) => call('POST', '/bank/cards/CARD-01/replacement', body);
    expect(code(await replace({ delivery_option: 'express', verification_token: token }))).toBe('QUOTE_REQUIRED');
    const options = await call('GET', `/bank/cards/CARD-01/delivery-options?verification_token=${token}`);
    expect(options.body).toMatchObject({ delivery_quote_id: 'DQ-0001', address: '44 Harbour Road, Leeds LS1 4AB' });
    expect(
      code(await replace({ delivery_option: 'drone', delivery_quote_id: 'DQ-0001', verification_token: token })),
    ).toBe('BAD_REQUEST');
    const replaced = await replace({
      delivery_option: 'express',
      delivery_quote_id: 'DQ-0001',
      verification_token: token,
    });
    expect(replaced).toMatchObject({
      status: 201,
      body: { replacement_id: 'RC-0001', fee: 15, arrives_on: '2026-01-17', new_card_last4: '8719' },
    });
    // The old card is closed: no second replacement, and the new card is listed.
    expect(
      code(await replace({ delivery_option: 'express', delivery_quote_id: 'DQ-0001', verification_token: token })),
    ).toBe('CARD_CLOSED');
    const after = await call('GET', `/bank/customers/${customerId}/cards?verification_token=${token}`);
    expect(after.body.cards).toContainEqual(expect.objectContaining({ card_last4: '8719', status: 'active' }));
    expect(api.stats()).toMatchObject({
      violations: 3,
      byViolation: { CARD_NOT_BLOCKED: 1, NOT_VERIFIED: 1, QUOTE_REQUIRED: 1 },
    });
  });

  it("refuses another customer's token and quote, closed cards, and locks after three wrong birth dates", async () => {
    const maya = await verified();
    const tom = await verified('555-0102', '1975-11-30');
    const block = (customerId: string, last4: string, token: string) =>
      call('POST', '/bank/cards/block', {
        customer_id: customerId,
        card_last4: last4,
        reason: 'stolen',
        verification_token: token,
      });
    expect(code(await block('B-2002', '1195', maya.verification_token))).toBe('INVALID_TOKEN');
    expect(code(await block('B-2002', '6402', tom.verification_token))).toBe('CARD_CLOSED');
    expect(code(await block('B-2002', '0000', tom.verification_token))).toBe('CARD_NOT_FOUND');
    await block('B-2001', '4821', maya.verification_token);
    await block('B-2002', '1195', tom.verification_token);
    await call('GET', `/bank/cards/CARD-01/delivery-options?verification_token=${maya.verification_token}`);
    const foreignQuote = await call('POST', '/bank/cards/CARD-03/replacement', {
      delivery_option: 'standard',
      delivery_quote_id: 'DQ-0001',
      verification_token: tom.verification_token,
    });
    expect(code(foreignQuote)).toBe('INVALID_QUOTE');
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(code(await call('POST', '/bank/verify', { phone: '5550104', date_of_birth: '1963-07-22' }))).toBe(
        'VERIFICATION_FAILED',
      );
    }
    expect(code(await call('POST', '/bank/verify', { phone: '5550104', date_of_birth: '1963-07-21' }))).toBe('LOCKED');
    // An unknown phone answers like a wrong date: nothing is learnt about who banks here.
    expect(code(await call('POST', '/bank/verify', { phone: '5559999', date_of_birth: '1963-07-21' }))).toBe(
      'VERIFICATION_FAILED',
    );
    // Business refusals (closed card, unknown card, wrong birth date) are not violations.
    expect(api.stats().byViolation).toEqual({ INVALID_QUOTE: 1, INVALID_TOKEN: 1 });
  });
});

describe('flights', () => {
  async function found(reference = 'K7Q2LM', lastName = 'lindqvist') {
    const reply = await call('GET', `/flights/bookings?booking_reference=${reference}&last_name=${lastName}`);
    expect(reply.status).toBe(200);
    return reply.body as { booking_token: string };
  }

  it('finds, searches, quotes and changes, moving the seat', async () => {
    const { booking_token: token } = await found();
    const search = await call('GET', `/flights/bookings/K7Q2LM/alternatives?date=2026-01-24&booking_token=${token}`);
    expect(search.body).toMatchObject({ search_id: 'SR-0001', origin: 'AMS', destination: 'LIS' });
    expect((search.body.flights as { flight_number: string }[]).map((flight) => flight.flight_number)).toEqual([
      'WA210',
      'WA214',
    ]);
    const quote = (body: object) => call('POST', '/flights/bookings/K7Q2LM/quote', { booking_token: token, ...body });
    expect(code(await quote({ new_flight_number: 'WA214' }))).toBe('SEARCH_REQUIRED');
    expect(code(await quote({ search_id: 'SR-0001', new_flight_number: 'WA305' }))).toBe('FLIGHT_NOT_IN_SEARCH');
    expect((await quote({ search_id: 'SR-0001', new_flight_number: 'wa214' })).body).toMatchObject({
      quote_id: 'Q-0001',
      change_fee: 75,
      fare_difference: 39,
      total_due: 114,
    });
    const change = (body: object) => call('POST', '/flights/bookings/K7Q2LM/change', { booking_token: token, ...body });
    expect(code(await change({}))).toBe('QUOTE_REQUIRED');
    expect((await change({ quote_id: 'Q-0001' })).body).toMatchObject({
      flight_number: 'WA214',
      date: '2026-01-24',
      status: 'changed',
      charged: 114,
    });
    expect(code(await change({ quote_id: 'Q-0001' }))).toBe('QUOTE_USED');
    const again = await call('GET', `/flights/bookings/K7Q2LM/alternatives?date=2026-01-22&booking_token=${token}`);
    expect(again.body.flights).toEqual([expect.objectContaining({ flight_number: 'WA210', seats_left: 31 })]);
    expect(api.stats().byViolation).toEqual({ QUOTE_REQUIRED: 1, SEARCH_REQUIRED: 1 });
  });

  it('refuses basic fares, flights within 24 hours, full flights, past dates, and tokens of other bookings', async () => {
    expect(code(await call('GET', '/flights/bookings?booking_reference=K7Q2LM&last_name=Smith'))).toBe(
      'BOOKING_NOT_FOUND',
    );
    const petra = await found('Z9B3NC', 'Novak');
    const ana = await found('H2M8VD', 'SILVA');
    const sean = await found('R5T1QW', "O'Brien");
    const alternatives = (reference: string, date: string, token: string) =>
      call('GET', `/flights/bookings/${reference}/alternatives?date=${date}&booking_token=${token}`);
    expect(code(await alternatives('Z9B3NC', '2026-02-05', petra.booking_token))).toBe('FARE_NOT_CHANGEABLE');
    expect(code(await alternatives('H2M8VD', '2026-01-18', ana.booking_token))).toBe('TOO_CLOSE_TO_DEPARTURE');
    expect(code(await alternatives('R5T1QW', '2026-01-10', sean.booking_token))).toBe('DATE_IN_PAST');
    expect(code(await alternatives('R5T1QW', '2026-13-45', sean.booking_token))).toBe('BAD_REQUEST');
    expect(code(await alternatives('R5T1QW', '2026-01-25', ana.booking_token))).toBe('INVALID_TOKEN');
    await alternatives('R5T1QW', '2026-01-25', sean.booking_token);
    const full = await call('POST', '/flights/bookings/R5T1QW/quote', {
      booking_token: sean.booking_token,
      search_id: 'SR-0001',
      new_flight_number: 'WA210',
    });
    expect(code(full)).toBe('FLIGHT_FULL');
    expect(api.stats().byViolation).toEqual({ INVALID_TOKEN: 1 });
  });
});

describe('insurance', () => {
  async function policy(number = 'HP-30001', dateOfBirth = '1984-06-02') {
    const reply = await call('POST', '/insurance/policies/lookup', {
      policy_number: number,
      date_of_birth: dateOfBirth,
    });
    expect(reply.status).toBe(200);
    return (reply.body as { verification_token: string }).verification_token;
  }

  it('checks coverage, files a claim with its coverage id, takes evidence and reports the status', async () => {
    const token = await policy();
    const coverage = await call(
      'GET',
      `/insurance/policies/HP-30001/coverage?incident_type=water_damage&verification_token=${token}`,
    );
    expect(coverage.body).toMatchObject({ coverage_id: 'CV-0001', deductible: 250, limit: 20000 });
    const claim = {
      policy_number: 'HP-30001',
      incident_date: '2026-01-10',
      description: 'Burst pipe',
      verification_token: token,
    };
    expect(code(await call('POST', '/insurance/claims', claim))).toBe('COVERAGE_CHECK_REQUIRED');
    const filed = await call('POST', '/insurance/claims', { ...claim, coverage_id: 'CV-0001' });
    expect(filed).toMatchObject({ status: 201, body: { claim_id: 'CL-0002', status: 'awaiting_evidence' } });
    expect(code(await call('POST', '/insurance/claims', { ...claim, coverage_id: 'CV-0001' }))).toBe('DUPLICATE_CLAIM');
    const evidence = { evidence_description: 'Photos', verification_token: token };
    expect(code(await call('POST', '/insurance/claims/CL-0099/evidence', evidence))).toBe('CLAIM_NOT_FOUND');
    expect((await call('POST', '/insurance/claims/CL-0002/evidence', evidence)).body).toMatchObject({
      status: 'under_review',
      evidence_count: 1,
    });
    expect((await call('GET', `/insurance/claims/CL-0002?verification_token=${token}`)).body).toMatchObject({
      status: 'under_review',
    });
    // The token of one policy does not open another policy's claim.
    expect(code(await call('GET', `/insurance/claims/CL-0001?verification_token=${token}`))).toBe('INVALID_TOKEN');
    expect(api.stats().byViolation).toEqual({ CLAIM_NOT_FOUND: 1, COVERAGE_CHECK_REQUIRED: 1, INVALID_TOKEN: 1 });
  });

  it('refuses uncovered incidents, lapsed policies, wrong birth dates, and dates outside the rules', async () => {
    expect(
      code(
        await call('POST', '/insurance/policies/lookup', { policy_number: 'HP-30001', date_of_birth: '1984-06-03' }),
      ),
    ).toBe('VERIFICATION_FAILED');
    const olivia = await policy();
    const daniel = await policy('hp-30004', '1970-01-30');
    const coverage = (number: string, type: string, token: string) =>
      call('GET', `/insurance/policies/${number}/coverage?incident_type=${type}&verification_token=${token}`);
    const flood = await coverage('HP-30001', 'flood', olivia);
    expect(flood.body.error?.message).toBe(
      'a home policy does not cover flood; it covers water_damage, fire, theft, storm',
    );
    expect(code(await coverage('HP-30004', 'theft', daniel))).toBe('POLICY_INACTIVE');
    expect(code(await coverage('HP-30001', 'meteor', olivia))).toBe('BAD_REQUEST');
    await coverage('HP-30001', 'theft', olivia);
    const file = (date: string) =>
      call('POST', '/insurance/claims', {
        policy_number: 'HP-30001',
        coverage_id: 'CV-0001',
        incident_date: date,
        description: 'Bike stolen',
        verification_token: olivia,
      });
    expect(code(await file('2026-01-20'))).toBe('INCIDENT_IN_FUTURE');
    expect(code(await file('2025-02-01'))).toBe('OUTSIDE_COVER');
    expect(code(await file('2025-10-01'))).toBe('REPORTED_TOO_LATE');
    expect(api.stats().violations).toBe(0);
  });
});

describe('mobile plans', () => {
  async function account(phone: string, pin: string) {
    const found = await call('GET', `/mobile/accounts?phone_number=${phone}`);
    const id = (found.body as { account_id: string }).account_id;
    const reply = await call('POST', `/mobile/accounts/${id}/verify`, { pin });
    expect(reply.status).toBe(200);
    return { id, token: (reply.body as { verification_token: string }).verification_token };
  }

  it('checks eligibility, then changes the plan with that eligibility id only', async () => {
    const chloe = await account('07700 900 222', '1357');
    expect(chloe.id).toBe('M-7002');
    const eligibility = (plan: string, token = chloe.token) =>
      call('POST', '/mobile/accounts/M-7002/eligibility', { plan_code: plan, verification_token: token });
    expect((await eligibility('plus30')).body).toMatchObject({
      eligibility_id: 'EL-0001',
      effective_date: '2026-02-01',
      early_change_fee: 30,
    });
    const change = (body: object) =>
      call('POST', '/mobile/accounts/M-7002/plan', { verification_token: chloe.token, ...body });
    expect(code(await change({ plan_code: 'PLUS30' }))).toBe('ELIGIBILITY_REQUIRED');
    expect(code(await change({ plan_code: 'BASIC10', eligibility_id: 'EL-0001' }))).toBe('INVALID_ELIGIBILITY');
    expect((await change({ plan_code: 'PLUS30', eligibility_id: 'EL-0001' })).body).toMatchObject({
      change_id: 'PC-0001',
      previous_plan: 'UNL5G',
      plan_code: 'PLUS30',
    });
    expect(code(await change({ plan_code: 'PLUS30', eligibility_id: 'EL-0001' }))).toBe('ELIGIBILITY_USED');
    expect(code(await eligibility('PLUS30'))).toBe('ALREADY_ON_PLAN');
    expect(code(await eligibility('GOLD'))).toBe('PLAN_NOT_FOUND');
    expect(code(await eligibility('BASIC10', 'pin_0000000000000000'))).toBe('INVALID_TOKEN');
    expect(api.stats().byViolation).toEqual({ ELIGIBILITY_REQUIRED: 1, INVALID_ELIGIBILITY: 1, INVALID_TOKEN: 1 });
  });

  it('refuses unpaid balances and 5G plans without a 5G phone; locks after three wrong PINs', async () => {
    const mia = await account('07700900444', '9021');
    const ethan = await account('07700900333', '2468');
    const eligibility = (id: string, plan: string, token: string) =>
      call('POST', `/mobile/accounts/${id}/eligibility`, { plan_code: plan, verification_token: token });
    expect((await eligibility(mia.id, 'TRAVEL20', mia.token)).body.error?.message).toContain('unpaid balance of 42.50');
    expect((await eligibility(ethan.id, 'UNL5G', ethan.token)).body.error?.message).toContain('needs a 5G device');
    expect((await eligibility(ethan.id, 'BASIC10', ethan.token)).body).toMatchObject({ early_change_fee: 0 });
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(code(await call('POST', '/mobile/accounts/M-7001/verify', { pin: '0000' }))).toBe('PIN_INCORRECT');
    }
    expect(code(await call('POST', '/mobile/accounts/M-7001/verify', { pin: '4812' }))).toBe('LOCKED');
    expect(code(await call('POST', '/mobile/accounts/M-9999/verify', { pin: '4812' }))).toBe('ACCOUNT_NOT_FOUND');
    expect(api.stats().byViolation).toEqual({ ACCOUNT_NOT_FOUND: 1 });
  });
});

describe('clinic', () => {
  it('books a searched slot for a found or registered patient, once', async () => {
    expect(code(await call('GET', '/clinic/patients?last_name=Walsh&date_of_birth=1985-03-09'))).toBe(
      'PATIENT_NOT_FOUND',
    );
    const registered = await call('POST', '/clinic/patients', {
      first_name: 'Liam',
      last_name: 'Walsh',
      date_of_birth: '1985-03-09',
      phone: '555-0299',
    });
    expect(registered).toMatchObject({ status: 201, body: { patient_id: 'P-8004', registered: true } });
    expect(
      code(
        await call('POST', '/clinic/patients', {
          first_name: 'L',
          last_name: 'walsh',
          date_of_birth: '1985-03-09',
          phone: '1',
        }),
      ),
    ).toBe('ALREADY_REGISTERED');
    const slots = await call('GET', '/clinic/slots?department=general_practice&date=2026-01-19');
    expect(slots.body.slots).toHaveLength(2);
    const slotId = slots.body.slot_id as string;
    expect(slotId).toMatch(/^SL-[0-9a-f]{8}$/);
    const book = (patientId: string, slot: string) =>
      call('POST', '/clinic/appointments', { patient_id: patientId, slot_id: slot, reason: 'Cough' });
    expect(code(await book('P-8004', 'SL-00000000'))).toBe('SLOT_NOT_FOUND');
    expect(code(await book('P-9999', slotId))).toBe('PATIENT_NOT_FOUND');
    expect((await book('P-8004', slotId)).body).toMatchObject({
      appointment_id: 'A-0002',
      doctor: 'Dr. Priya Nair',
      start: '10:30',
    });
    expect(code(await book('P-8001', slotId))).toBe('SLOT_TAKEN');
    // George already sees a GP on the 19th.
    expect(
      code(await book('P-8002', slots.body.slots ? (slots.body.slots as { slot_id: string }[])[1]!.slot_id : '')),
    ).toBe('DOUBLE_BOOKING');
    expect(api.stats().byViolation).toEqual({ PATIENT_NOT_FOUND: 1, SLOT_NOT_FOUND: 1 });
  });

  it('refuses full days, past dates and unknown departments; cancels only the patient’s own appointment in time', async () => {
    expect(code(await call('GET', '/clinic/slots?department=dermatology&date=2026-01-20'))).toBe('NO_SLOTS');
    expect(code(await call('GET', '/clinic/slots?department=cardiology&date=2026-01-15'))).toBe('DATE_IN_PAST');
    expect((await call('GET', '/clinic/slots?department=oncology&date=2026-01-19')).body.error?.message).toBe(
      'no department oncology; there are cardiology, dermatology, general_practice',
    );
    expect(code(await call('POST', '/clinic/appointments/A-0001/cancel', { patient_id: 'P-8001' }))).toBe(
      'NOT_YOUR_APPOINTMENT',
    );
    expect((await call('POST', '/clinic/appointments/A-0001/cancel', { patient_id: 'P-8002' })).body).toMatchObject({
      status: 'cancelled',
    });
    expect(code(await call('POST', '/clinic/appointments/A-0001/cancel', { patient_id: 'P-8002' }))).toBe(
      'ALREADY_CANCELLED',
    );
    const slots = await call('GET', '/clinic/slots?department=general_practice&date=2026-01-16');
    await call('POST', '/clinic/appointments', { patient_id: 'P-8003', slot_id: slots.body.slot_id, reason: 'Fever' });
    expect(code(await call('POST', '/clinic/appointments/A-0002/cancel', { patient_id: 'P-8003' }))).toBe(
      'TOO_LATE_TO_CANCEL',
    );
    expect(api.stats().byViolation).toEqual({ NOT_YOUR_APPOINTMENT: 1 });
  });
});

describe('every domain', () => {
  it('keeps tokens to their kind: an orders token opens no bank card, a bank token no order', async () => {
    const orders = await call('POST', '/customers/C-1001/verify', { postal_code: '10001' });
    const bank = await call('POST', '/bank/verify', { phone: '5550101', date_of_birth: '1988-04-12' });
    const ordersToken = orders.body.verification_token as string;
    const bankToken = bank.body.verification_token as string;
    expect(code(await call('GET', `/bank/customers/B-2001/cards?verification_token=${ordersToken}`))).toBe(
      'INVALID_TOKEN',
    );
    expect(code(await call('POST', '/orders/O-5003/cancel', { reason: 'x', verification_token: bankToken }))).toBe(
      'INVALID_TOKEN',
    );
    expect(api.stats().violations).toBe(2);
  });

  it('answers junk with 4xx and stays up: binary bodies, deep nesting, huge values, odd paths', async () => {
    const binary = await fetch(`${api.url}/bank/verify`, { method: 'POST', body: new Uint8Array([0, 255, 1, 254]) });
    expect(binary.status).toBe(400);
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect((await call('POST', '/insurance/claims', deep)).status).toBe(400);
    expect(
      (await call('POST', '/clinic/appointments', { patient_id: 'x'.repeat(5000), slot_id: 'y', reason: 'z' })).status,
    ).toBe(400);
    expect((await call('POST', '/mobile/accounts/M-7001/verify', { pin: 4812 })).status).toBe(400);
    expect((await call('GET', '/flights/bookings/%E0%A4%A/alternatives')).status).toBe(400);
    expect((await call('GET', '/clinic/patients?last_name=Becker&date_of_birth=1990-02-30')).status).toBe(400);
    expect((await call('GET', '/mobile/plans')).status).toBe(200);
    expect(api.stats().violations).toBe(0);
  });
});
