/**
 * The name a procedure calls a free-text API or answer by (the FlowAgent authors name answers in prose, "Please
 * provide necessary information", and call them `ANSWER_Please_provide_necessary_information`): trimmed, each run of
 * white space one `_`. An identifier stays itself.
 */
export function callNameOf(name: string): string {
  return name.trim().split(/\s+/u).join('_');
}
