// check-rules.cjs: a self-check of rules.js. Run it with `node check-rules.cjs` next to rules.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

vm.runInThisContext(fs.readFileSync(path.join(__dirname, 'rules.js'), 'utf8'), { filename: 'rules.js' });
const Rules = globalThis.GobangRules;
const { BLACK, WHITE, SIZE } = Rules;

function boardWith(stones, colour) {
  const board = Rules.createBoard();
  for (const [row, col] of stones) Rules.placeStone(board, row, col, colour);
  return board;
}

/** A full board with no five anywhere: runs of two, shifted so no line of any direction grows past two. */
function fullBoardWithoutFive() {
  const board = Rules.createBoard();
  for (let row = 0; row < SIZE; row++) {
    for (let col = 0; col < SIZE; col++) board[row][col] = (col + 2 * row) % 4 < 2 ? BLACK : WHITE;
  }
  return board;
}

const line = (row, col, dr, dc, length) => Array.from({ length }, (_, i) => [row + i * dr, col + i * dc]);

const checks = [
  ['a horizontal five wins', () => Rules.winningLine(boardWith(line(7, 3, 0, 1, 5), BLACK), 7, 5) !== null],
  ['a vertical five wins', () => Rules.winningLine(boardWith(line(0, 0, 1, 0, 5), WHITE), 4, 0) !== null],
  ['a diagonal five wins', () => Rules.winningLine(boardWith(line(2, 2, 1, 1, 5), BLACK), 6, 6) !== null],
  ['an anti-diagonal five wins', () => Rules.winningLine(boardWith(line(0, 14, 1, -1, 5), WHITE), 2, 12) !== null],
  ['four in a row does not win', () => Rules.winningLine(boardWith(line(7, 3, 0, 1, 4), BLACK), 7, 4) === null],
  ['a full board without five is a draw', () => Rules.isDraw(fullBoardWithoutFive())],
  ['a board with a free cell is not a draw', () => {
    const board = fullBoardWithoutFive();
    board[7][7] = Rules.EMPTY;
    return !Rules.isDraw(board);
  }],
  ['a full board with five is not a draw', () => {
    const board = fullBoardWithoutFive();
    for (let col = 0; col < 5; col++) board[0][col] = BLACK;
    return !Rules.isDraw(board);
  }],
  ['an occupied cell is not a legal move', () => !Rules.isLegalMove(boardWith([[3, 3]], BLACK), 3, 3)],
];

let failed = 0;
for (const [name, check] of checks) {
  let ok = false;
  try {
    ok = check() === true;
  } catch (error) {
    console.log(`  error: ${error.message}`);
  }
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`);
}
console.log(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`);
process.exitCode = failed === 0 ? 0 : 1;
