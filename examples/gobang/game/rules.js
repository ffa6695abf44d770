/*
 * rules.js: the rules of Gobang (five in a row) on a 15 x 15 board.
 * A classic script: it defines the global GobangRules and touches nothing else.
 */
(function () {
  'use strict';

  var SIZE = 15;
  var EMPTY = 0;
  var BLACK = 1;
  var WHITE = 2;
  // Right, down, down-right, down-left: every line through a cell runs along one of these.
  var DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]];

  function createBoard() {
    var board = [];
    for (var row = 0; row < SIZE; row++) {
      var cells = [];
      for (var col = 0; col < SIZE; col++) cells.push(EMPTY);
      board.push(cells);
    }
    return board;
  }

  function opponent(colour) {
    return colour === BLACK ? WHITE : BLACK;
  }

  function inside(row, col) {
    return row >= 0 && row < SIZE && col >= 0 && col < SIZE;
  }

  function isLegalMove(board, row, col) {
    return Number.isInteger(row) && Number.isInteger(col) && inside(row, col) && board[row][col] === EMPTY;
  }

  function placeStone(board, row, col, colour) {
    if (colour !== BLACK && colour !== WHITE) throw new Error('Unknown colour: ' + colour);
    if (!isLegalMove(board, row, col)) throw new Error('Illegal move at row ' + row + ', column ' + col);
    board[row][col] = colour;
  }

  /** The cells of the longest run of one colour through (row, col) along (dr, dc). */
  function runThrough(board, row, col, dr, dc) {
    var colour = board[row][col];
    var cells = [[row, col]];
    var r = row + dr;
    var c = col + dc;
    while (inside(r, c) && board[r][c] === colour) {
      cells.push([r, c]);
      r += dr;
      c += dc;
    }
    r = row - dr;
    c = col - dc;
    while (inside(r, c) && board[r][c] === colour) {
      cells.unshift([r, c]);
      r -= dr;
      c -= dc;
    }
    return cells;
  }

  /** The cells of a line of five or more through the stone at (row, col), or null. */
  function winningLine(board, row, col) {
    if (!inside(row, col) || board[row][col] === EMPTY) return null;
    for (var i = 0; i < DIRECTIONS.length; i++) {
      var cells = runThrough(board, row, col, DIRECTIONS[i][0], DIRECTIONS[i][1]);
      if (cells.length >= 5) return cells;
    }
    return null;
  }

  function isFull(board) {
    for (var row = 0; row < SIZE; row++) {
      for (var col = 0; col < SIZE; col++) {
        if (board[row][col] === EMPTY) return false;
      }
    }
    return true;
  }

  function hasFive(board) {
    for (var row = 0; row < SIZE; row++) {
      for (var col = 0; col < SIZE; col++) {
        if (winningLine(board, row, col)) return true;
      }
    }
    return false;
  }

  /** A draw: every cell is taken and nobody has five in a row. */
  function isDraw(board) {
    return isFull(board) && !hasFive(board);
  }

  globalThis.GobangRules = {
    SIZE: SIZE,
    EMPTY: EMPTY,
    BLACK: BLACK,
    WHITE: WHITE,
    createBoard: createBoard,
    opponent: opponent,
    isLegalMove: isLegalMove,
    placeStone: placeStone,
    winningLine: winningLine,
    isFull: isFull,
    isDraw: isDraw,
  };
})();
