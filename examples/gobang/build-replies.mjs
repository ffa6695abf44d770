#!/usr/bin/env node
/**
 * Builds replies.json, the scripted model of the Gobang demo, from the files in game/ and drafts/.
 *
 *   node examples/gobang/build-replies.mjs           write replies.json
 *   node examples/gobang/build-replies.mjs --check   exit 1 when replies.json is out of date
 *
 * The script the model follows (see README.md):
 * - 3 planner calls: a linear plan, a partly parallel one and a parallel one; Weft must choose the parallel one.
 * - The parallel plan's 5 subtasks each write one file. Every result is accepted except the first rules.js,
 *   which has no draw detection although game.js is told to call GobangRules.isDraw: the verifier asks for a
 *   re-plan. Of the inspector's 3 candidate revisions, the most parallel one wins: it rewrites that subtask's
 *   objective and adds a self-check subtask; everything else keeps its id, objective and agent, so finished
 *   work is kept.
 *
 * Every entry is matched on the role's system prompt plus the start of the subtask's objective, because calls
 * run concurrently and arrive in any order. The matchers follow src/plan/prompts.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const read = (path) => readFileSync(join(here, path), 'utf8');

// ---------------------------------------------------------------------------------------------------------------
// The chosen plan (v1) and its revision (v2). Objectives must stay byte-identical between the two versions for
// every subtask whose work is kept.

const roles = [
  { name: 'designer', prompt: 'You are a front-end designer. You write clean, accessible HTML and CSS with no frameworks.' },
  {
    name: 'coder',
    prompt:
      'You are a careful JavaScript programmer. You write plain browser JavaScript as classic scripts (no modules, no libraries, no build step) and keep to the names you are given.',
  },
];

const testerRole = {
  name: 'tester',
  prompt: 'You are a test engineer. You write small, dependency-free checks that prove rules are implemented correctly.',
};

const objective = {
  page:
    'Write index.html, the page structure. Link style.css in the head and load rules.js, ai.js and game.js, in that order, with <script defer>. ' +
    'Include a heading; a colour chooser with id="colour-choice" holding the buttons id="play-black" and id="play-white"; a turn indicator with id="turn"; ' +
    'an empty board container with id="board" that game.js fills; a message area with id="message"; and a "New game" button with id="restart", hidden at first. ' +
    'Use aria-live on #turn and #message. No inline styles or scripts.',
  style:
    'Write style.css, the look of the page. #board is a wooden 15 x 15 grid of button.cell elements that game.js creates (with data-row and data-col; ' +
    'a cell may also have the class black or white for a stone, last for the latest move and winning for the winning line, and is disabled when it cannot be played). ' +
    'Draw grid lines through the cells\' centres and round black and white stones; style #colour-choice, #turn (classes black and white), ' +
    '#message (classes win, loss and draw) and #restart, honour the hidden attribute, and fit a phone screen.',
  rules:
    'Write rules.js, the rules module, as a classic browser script that defines the global GobangRules with: SIZE (15), EMPTY (0), BLACK (1), WHITE (2); ' +
    'createBoard(), returning 15 arrays of 15 EMPTY values; opponent(colour); isLegalMove(board, row, col); placeStone(board, row, col, colour), which throws on an illegal move; ' +
    'and winningLine(board, row, col), returning the cells ([row, col] pairs) of a line of five or more stones through the stone at (row, col) in any of the four directions, or null.',
  rulesRevised:
    'Rewrite rules.js, the rules module, so that it also detects a draw. A classic browser script that defines the global GobangRules with: SIZE (15), EMPTY (0), BLACK (1), WHITE (2); ' +
    'createBoard(), returning 15 arrays of 15 EMPTY values; opponent(colour); isLegalMove(board, row, col); placeStone(board, row, col, colour), which throws on an illegal move; ' +
    'winningLine(board, row, col), returning the cells ([row, col] pairs) of a line of five or more stones through the stone at (row, col) in any of the four directions, or null; ' +
    'isFull(board); and isDraw(board), true when every cell is taken and nobody has five in a row (game.js calls it after every move).',
  ai:
    'Write ai.js, a naive computer opponent, as a classic browser script that defines the global GobangAI with chooseMove(board, colour), returning {row, col} of an empty cell. ' +
    'The board is 15 arrays of 15 numbers (0 empty, 1 black, 2 white). Score each empty cell near the stones by the lines it would make for the computer and the lines it would ' +
    'block for the opponent (completing five beats blocking five, which beats an open four, and so on); open in the centre of an empty board. Do not depend on other scripts.',
  game:
    'Write game.js, the game controller, as a classic browser script loaded after rules.js and ai.js. Use GobangRules (createBoard, opponent, isLegalMove, placeStone, winningLine, isDraw) ' +
    'and GobangAI.chooseMove. Fill #board with 15 x 15 button.cell elements (data-row, data-col, aria-label); #play-black and #play-white start a game with the player as that colour ' +
    '(black moves first, so the computer opens when the player is white); keep #turn saying whose turn it is; after every move check for five in a row and for a draw, and end the game ' +
    'with a message in #message (class win, loss or draw); #restart goes back to the colour choice.',
  check:
    'Write check-rules.cjs, a Node.js self-check of rules.js (run as `node check-rules.cjs` in the folder that holds rules.js; load rules.js with the vm module, since it is a browser script). ' +
    'Check that horizontal, vertical and both diagonal fives win, that four in a row does not, that a full board without five is a draw, that a board with a free cell or with a five is not, ' +
    'and that an occupied cell is not a legal move. Print one line per check and exit with code 1 when any fails.',
};

const chosenPlan = {
  roles,
  subtasks: [
    { id: 't1', objective: objective.page, agent: 'designer', dependsOn: [] },
    { id: 't2', objective: objective.style, agent: 'designer', dependsOn: [] },
    { id: 't3', objective: objective.rules, agent: 'coder', dependsOn: [] },
    { id: 't4', objective: objective.ai, agent: 'coder', dependsOn: [] },
    { id: 't5', objective: objective.game, agent: 'coder', dependsOn: ['t3', 't4'] },
  ],
};

const revisedPlan = {
  roles: [testerRole],
  subtasks: [
    ...chosenPlan.subtasks.map((subtask) => (subtask.id === 't3' ? { ...subtask, objective: objective.rulesRevised } : subtask)),
    { id: 't6', objective: objective.check, agent: 'tester', dependsOn: ['t3'] },
  ],
};

/** A revision that loses on parallelism: game.js waits for the self-check. */
const cautiousRevision = {
  roles: [testerRole],
  subtasks: revisedPlan.subtasks.map((subtask) => (subtask.id === 't5' ? { ...subtask, dependsOn: ['t3', 't4', 't6'] } : subtask)),
};

/** Linear: one level per subtask, P_avg = 1. */
const linearPlan = {
  roles: [
    { name: 'developer', prompt: 'You are a web developer.' },
    { name: 'reviewer', prompt: 'You are a code reviewer who fixes what you find.' },
  ],
  subtasks: [
    {
      id: 'page',
      objective: 'Design the whole page: index.html and style.css with a 15 x 15 board, a black/white chooser, a turn indicator and a message area.',
      agent: 'developer',
      dependsOn: [],
    },
    {
      id: 'logic',
      objective: 'Add game.js with the rules (five in a row, a draw on a full board), a naive computer opponent and the code that connects them to the page.',
      agent: 'developer',
      dependsOn: ['page'],
    },
    {
      id: 'review',
      objective: 'Play a game in your head against the code, list the bugs you find and fix them in the files.',
      agent: 'reviewer',
      dependsOn: ['logic'],
    },
  ],
};

/** Partly parallel, with numeric ids and no roles (models do that): P_avg = 4/3. */
const layeredPlan = {
  subtasks: [
    { id: 1, objective: 'Create index.html and style.css: a 15 x 15 board, colour buttons, a turn line and a result line.', agent: 'designer', dependsOn: [] },
    { id: 2, objective: 'Create rules.js: the board, legal moves, five-in-a-row and draw detection.', agent: 'coder', dependsOn: [] },
    { id: 3, objective: 'Create ai.js: a greedy opponent that uses rules.js to extend its lines and block the player.', agent: 'coder', dependsOn: [2] },
    { id: 4, objective: 'Create game.js: wire the page, the rules and the opponent together.', agent: 'coder', dependsOn: [1, 2, 3] },
  ],
};

// ---------------------------------------------------------------------------------------------------------------
// Matchers (src/plan/prompts.ts): the agent's system prompt ends with "You are one agent in a team"; the verifier's
// and the inspector's start with "You are Weft's verifier" / "You are Weft's inspector". The objective follows
// "<objective>" in both the agent's and the verifier's prompt.

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const lead = (text) => text.split(' ').slice(0, 2).join(' '); // "Write rules.js", "Rewrite rules.js", …
const agentWhen = (objectiveText) => `/You are one agent in a team[\\s\\S]*<objective>\\s*${escapeRegex(lead(objectiveText))}/`;
const verifierWhen = (objectiveText) => `/^You are Weft's verifier[\\s\\S]*<objective>\\s*${escapeRegex(lead(objectiveText))}/`;

const fence = (language, path, content, ticks = '```') => `${ticks}${language} path=${path}\n${content.endsWith('\n') ? content : `${content}\n`}${ticks}`;
const json = (value) => JSON.stringify(value, null, 2);
const verdict = (kind, reason) => JSON.stringify({ verdict: kind, reason });

const agentReply = (summary, files, after = '') =>
  [summary, '', ...files.flatMap((file) => [fence(file.language, file.path, file.content), '']), after].join('\n').trimEnd();

function buildReplies() {
  const replies = [];

  // Planning: K = 3 candidates, same prompt; each entry answers one call.
  replies.push(
    { when: "You are Weft's planner", text: json(linearPlan) },
    { when: "You are Weft's planner", text: json(chosenPlan) },
    {
      when: "You are Weft's planner",
      text: `Here is a plan in four steps; the rules come first because the opponent and the controller use them.\n\n\`\`\`json\n${json(layeredPlan)}\n\`\`\``,
    },
  );

  // t1: index.html
  replies.push(
    {
      when: agentWhen(objective.page),
      text: agentReply(
        'Here is the page structure. The scripts are deferred so they run in order once the DOM is parsed, and every element game.js needs has the agreed id.',
        [{ language: 'html', path: 'index.html', content: read('game/index.html') }],
      ),
    },
    { when: verifierWhen(objective.page), text: verdict('accept', 'index.html links style.css, loads rules.js, ai.js and game.js in order with defer, and has every required id.') },
  );

  // t2: style.css
  replies.push(
    {
      when: agentWhen(objective.style),
      text: agentReply(
        'Here is the stylesheet. Grid lines are pseudo-elements through each cell\'s centre, trimmed at the edges; a stone replaces the lines of its cell.',
        [{ language: 'css', path: 'style.css', content: read('game/style.css') }],
      ),
    },
    { when: verifierWhen(objective.style), text: verdict('accept', 'style.css styles the 15 x 15 grid, both stone colours, the last move, the turn indicator, the messages and a narrow screen.') },
  );

  // t3, first attempt: no draw detection, so the verifier asks for a re-plan.
  replies.push(
    {
      when: agentWhen(objective.rules),
      text: agentReply(
        'Here is the rules module. winningLine scans the four directions through the last stone, so a win is found in constant time per move.',
        [{ language: 'js', path: 'rules.js', content: read('drafts/rules-without-draw.js') }],
        'GobangRules exposes SIZE, EMPTY, BLACK, WHITE, createBoard, opponent, isLegalMove, placeStone and winningLine.',
      ),
    },
    {
      when: verifierWhen(objective.rules),
      text: verdict(
        'replan',
        'rules.js does what its objective lists, but the plan never detects a draw: the task requires a draw message when the board is full, and t5 is told to call GobangRules.isDraw, which no subtask provides. The rules subtask must also cover draw detection.',
      ),
    },
  );

  // The inspector, K = 3 candidate revisions, scored like plans. The chosen one gives t3 a new objective and adds a
  // self-check (P_avg 3); the others are no change at all (P_avg 2.5) and a cautious variant that makes game.js
  // wait for the self-check (P_avg 2).
  replies.push(
    { when: "You are Weft's inspector", text: `The plan is sound; rerunning t3 should be enough.\n\n{}` },
    { when: "You are Weft's inspector", text: json(revisedPlan) },
    { when: "You are Weft's inspector", text: json(cautiousRevision) },
  );

  // t3, second attempt (revised objective).
  replies.push(
    {
      when: agentWhen(objective.rulesRevised),
      text: agentReply(
        'Here is the revised rules module. It keeps the earlier API and adds isFull and isDraw: a draw is a full board on which nobody has five in a row.',
        [{ language: 'js', path: 'rules.js', content: read('game/rules.js') }],
      ),
    },
    { when: verifierWhen(objective.rulesRevised), text: verdict('accept', 'rules.js now provides isFull and isDraw as well as the move and win functions.') },
  );

  // t4: ai.js
  replies.push(
    {
      when: agentWhen(objective.ai),
      text: agentReply(
        'Here is the naive opponent: a one-move greedy search. Attack is weighted a little above defence so that completing five always beats blocking five.',
        [{ language: 'js', path: 'ai.js', content: read('game/ai.js') }],
      ),
    },
    { when: verifierWhen(objective.ai), text: verdict('accept', 'GobangAI.chooseMove scores attack and defence, prefers winning over blocking, and opens in the centre.') },
  );

  // t5: game.js
  replies.push(
    {
      when: agentWhen(objective.game),
      text: agentReply(
        'Here is the controller. It builds the board once, re-renders after every move, and lets the computer answer after a short pause.',
        [{ language: 'js', path: 'game.js', content: read('game/game.js') }],
      ),
    },
    { when: verifierWhen(objective.game), text: verdict('accept', 'game.js handles the colour choice, the turn indicator, win and draw messages and restarting, using GobangRules and GobangAI.') },
  );

  // t6: check-rules.cjs (added by the revision).
  replies.push(
    {
      when: agentWhen(objective.check),
      text: agentReply(
        'Here is the self-check. The draw position repeats pairs of stones, shifted two columns per row, so no line in any direction is longer than two.',
        [{ language: 'js', path: 'check-rules.cjs', content: read('game/check-rules.cjs') }],
      ),
    },
    { when: verifierWhen(objective.check), text: verdict('accept', 'check-rules.cjs covers wins in all four directions, a non-win, draws and an illegal move, and sets the exit code.') },
  );

  return { replies };
}

const output = `${JSON.stringify(buildReplies(), null, 2)}\n`;
const target = join(here, 'replies.json');
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // Missing counts as out of date.
  }
  if (current !== output) {
    console.error('examples/gobang/replies.json is out of date: run node examples/gobang/build-replies.mjs');
    process.exitCode = 1;
  }
} else {
  writeFileSync(target, output);
  console.log(`wrote ${target}`);
}
