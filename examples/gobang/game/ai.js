/*
 * ai.js: a naive computer opponent for Gobang. A classic script that defines the global GobangAI.
 * The board is 15 arrays of 15 numbers: 0 empty, 1 black, 2 white.
 *
 * Each empty cell near the stones is scored by the lines it would make for the computer (attack) and the lines
 * it would cut for the opponent (defence). Completing five beats blocking five, which beats an open four, and
 * so on down. No look-ahead: that is what makes it naive.
 */
(function () {
  'use strict';

  var SIZE = 15;
  var EMPTY = 0;
  var DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]];

  function inside(row, col) {
    return row >= 0 && row < SIZE && col >= 0 && col < SIZE;
  }

  /** Stones of `colour` in a row from (row, col) along (dr, dc), not counting the cell itself. */
  function stretch(board, row, col, dr, dc, colour) {
    var count = 0;
    var r = row + dr;
    var c = col + dc;
    while (inside(r, c) && board[r][c] === colour) {
      count++;
      r += dr;
      c += dc;
    }
    return { count: count, open: inside(r, c) && board[r][c] === EMPTY };
  }

  function lineValue(length, openEnds) {
    if (length >= 5) return 1000000;
    if (openEnds === 0) return 0;
    if (length === 4) return openEnds === 2 ? 10000 : 1000;
    if (length === 3) return openEnds === 2 ? 1000 : 100;
    if (length === 2) return openEnds === 2 ? 100 : 10;
    return openEnds === 2 ? 10 : 1;
  }

  /** What a stone of `colour` at the empty cell (row, col) would be worth to that colour. */
  function valueFor(board, row, col, colour) {
    var total = 0;
    for (var i = 0; i < DIRECTIONS.length; i++) {
      var dr = DIRECTIONS[i][0];
      var dc = DIRECTIONS[i][1];
      var ahead = stretch(board, row, col, dr, dc, colour);
      var behind = stretch(board, row, col, -dr, -dc, colour);
      total += lineValue(1 + ahead.count + behind.count, (ahead.open ? 1 : 0) + (behind.open ? 1 : 0));
    }
    return total;
  }

  function nearStones(board, row, col) {
    for (var dr = -2; dr <= 2; dr++) {
      for (var dc = -2; dc <= 2; dc++) {
        var r = row + dr;
        var c = col + dc;
        if ((dr !== 0 || dc !== 0) && inside(r, c) && board[r][c] !== EMPTY) return true;
      }
    }
    return false;
  }

  function chooseMove(board, colour) {
    var other = colour === 1 ? 2 : 1;
    var centre = (SIZE - 1) / 2;
    var best = null;
    var empty = false;
    for (var row = 0; row < SIZE; row++) {
      for (var col = 0; col < SIZE; col++) {
        if (board[row][col] !== EMPTY) continue;
        empty = true;
        if (!nearStones(board, row, col)) continue;
        // Attack counts a little more than defence: finishing our own five beats blocking theirs.
        var score = valueFor(board, row, col, colour) * 1.1 + valueFor(board, row, col, other);
        var distance = Math.abs(row - centre) + Math.abs(col - centre);
        if (!best || score > best.score || (score === best.score && distance < best.distance)) {
          best = { row: row, col: col, score: score, distance: distance };
        }
      }
    }
    if (best) return { row: best.row, col: best.col };
    if (!empty) return null;
    // No stones near any free cell: the board is empty, so open in the centre (or the first free cell).
    if (board[centre][centre] === EMPTY) return { row: centre, col: centre };
    for (var r = 0; r < SIZE; r++) {
      for (var c = 0; c < SIZE; c++) if (board[r][c] === EMPTY) return { row: r, col: c };
    }
    return null;
  }

  globalThis.GobangAI = { chooseMove: chooseMove };
})();
