/**
 * A procedure in PDL (the FlowAgent paper's format; docs/pdl.md): what `parsePdl` (parse-pdl.ts) makes of a `*.pdl.yaml`
 * file and what the conversation engine, the controllers and `weft pdl check/show` read. Plain data, no I/O.
 */
import type { ResultCondition } from '../text/result-condition.js';

/** Answers every procedure has, whether it lists them or not. */
export const BUILT_IN_ANSWERS = ['request_information', 'answer_out_of_workflow_questions'] as const;

export interface PdlSlot {
  readonly name: string;
  readonly desc: string;
  /** As written (`string`, `int`, `date`, …): guidance for the model, not checked. */
  readonly type?: string;
}

export interface PdlApi {
  /** The name the procedure calls it by and its tool's name: an identifier (see `label`). */
  readonly name: string;
  /**
   * The name as the file wrote it, when that was free text (`check availability`): `name` is then that text with
   * each run of spaces as one `_`, which is how the FlowAgent authors' procedures call it (`API_check_availability`).
   */
  readonly label?: string;
  readonly desc?: string;
  /** Parameter names it takes (slots, or fields of earlier responses). */
  readonly request: readonly string[];
  /** Field names it returns. */
  readonly response: readonly string[];
  /**
   * APIs that must have returned successfully first (`precondition`, or `pre` in the wild), the APIs of its
   * `conditions` included.
   */
  readonly precondition: readonly string[];
  /** Conditions on those APIs' latest successful results (`check.is_air == "true"`); absent: none. */
  readonly conditions?: readonly PdlResultCondition[];
}

/** A precondition on what an API returned, e.g. `checkAvailability.is_air == "true"` (text/result-condition.ts). */
export type PdlResultCondition = ResultCondition;

export interface PdlAnswer {
  /** The name the procedure calls it by (`ANSWER_Please_provide_necessary_information`): an identifier. */
  readonly name: string;
  /** The name as written, when it was free text (`Please provide necessary information`); see PdlApi.label. */
  readonly label?: string;
  readonly desc: string;
  /** APIs that should have succeeded before this answer is given (guidance: the model is told, not refused). */
  readonly precondition: readonly string[];
  /** Conditions on their results, as for an API (guidance too). */
  readonly conditions?: readonly PdlResultCondition[];
  /** One of BUILT_IN_ANSWERS, added when the file does not list it. */
  readonly builtIn?: boolean;
}

/** A controller module of the user's, from `controllers.modules`. */
export interface PdlControllerModule {
  /** Resolved against the PDL file's folder. */
  readonly path: string;
  /** The export to use (default: `default`). */
  readonly export?: string;
  /** Passed to the export when it is a factory function. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * How the repetition controller judges a repeated call: `safe` (the default: a non-idempotent API never runs twice
 * after a success or an unknown outcome, the rest up to `limit`), `count` (every API up to `limit`), `paper` (the
 * FlowAgent paper's rule: only a call identical to the one just made is refused).
 */
export const REPETITION_RULES = ['safe', 'count', 'paper'] as const;
export type RepetitionRule = (typeof REPETITION_RULES)[number];

/** `controllers:` of a PDL file; everything optional, defaults in controller-settings.ts. */
export interface PdlControllerSettings {
  /** false turns it off; `pre`/`post` keeps only that half. */
  readonly dependency?: boolean | 'pre' | 'post' | 'both';
  /**
   * Repeated calls (the same API, the same canonical arguments): `limit` of them are allowed (default 2), and under
   * the default rule `safe` a call of an API that is not idempotent is never repeated after a success or an unknown
   * outcome (repetition-controller.ts).
   */
  readonly repetition?: boolean | { readonly limit?: number; readonly rule?: RepetitionRule };
  /** Turns after which the bot is steered to close the conversation (default 20). */
  readonly sessionLength?: boolean | { readonly maxTurns?: number };
  readonly modules?: readonly PdlControllerModule[];
}

/** One call or answer the procedure text names, where it names it (for `weft pdl check`). */
export interface PdlReference {
  readonly kind: 'api' | 'answer';
  readonly name: string;
  /** 1-based, in the PDL file. */
  readonly line: number;
  readonly column: number;
  /** Names assigned from it (`[a, b] = API.x(...)`), and names passed to it (`API.x(p, q)`), as written. */
  readonly outputs: readonly string[];
  readonly inputs: readonly string[];
}

export interface Pdl {
  /** Absolute path of the file it came from; undefined for a PDL given as text. */
  readonly file?: string;
  readonly name: string;
  readonly desc: string;
  readonly detailedDesc?: string;
  readonly slots: readonly PdlSlot[];
  readonly apis: readonly PdlApi[];
  /** The file's answers, then the built-in ones it did not list. */
  readonly answers: readonly PdlAnswer[];
  /** The procedure text as written (`Procedure:` or `PDL:`). */
  readonly procedure: string;
  /** The API calls and answers the procedure text names, in order. */
  readonly references: readonly PdlReference[];
  readonly controllers: PdlControllerSettings;
  /**
   * Whether the file has a `tools:` section (bindings of its APIs to http, module or mcp tools). It is checked by
   * parsePdl with parseToolsSection and opened with `loadToolsFile(file, { embedded: true })`.
   */
  readonly hasTools: boolean;
  /** sha256 of the file's text: a session records it, and a resume with a changed file says so. */
  readonly sha256: string;
}

/** A finding of `weft pdl check` (and of loading a PDL file: errors stop it, warnings do not). */
export interface PdlProblem {
  readonly severity: 'error' | 'warning';
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** Dotted path to the field, e.g. `APIs[2].precondition[0]`. */
  readonly path?: string;
  readonly message: string;
}
