/*
 * game.js: the Gobang game controller. A classic script loaded after rules.js and ai.js.
 * It draws the board into #board, lets the player choose black or white, keeps #turn up to date, asks
 * GobangAI for the computer's moves and ends the game with a message in #message.
 */
(function () {
  'use strict';

  var Rules = globalThis.GobangRules;
  var AI = globalThis.GobangAI;
  var AI_DELAY_MS = 300;

  var boardElement = document.getElementById('board');
  var turnElement = document.getElementById('turn');
  var messageElement = document.getElementById('message');
  var choiceElement = document.getElementById('colour-choice');
  var playBlack = document.getElementById('play-black');
  var playWhite = document.getElementById('play-white');
  var restartButton = document.getElementById('restart');

  var cells = [];
  var game = null;

  function colourName(colour) {
    return colour === Rules.BLACK ? 'black' : 'white';
  }

  function buildBoard() {
    boardElement.textContent = '';
    cells = [];
    for (var row = 0; row < Rules.SIZE; row++) {
      var line = [];
      for (var col = 0; col < Rules.SIZE; col++) {
        var cell = document.createElement('button');
        cell.type = 'button';
        cell.className = 'cell';
        cell.setAttribute('data-row', String(row));
        cell.setAttribute('data-col', String(col));
        cell.setAttribute('aria-label', 'Row ' + (row + 1) + ', column ' + (col + 1) + ': empty');
        cell.addEventListener('click', onCellClick.bind(null, row, col));
        boardElement.appendChild(cell);
        line.push(cell);
      }
      cells.push(line);
    }
  }

  function render() {
    for (var row = 0; row < Rules.SIZE; row++) {
      for (var col = 0; col < Rules.SIZE; col++) {
        var cell = cells[row][col];
        var stone = game ? game.board[row][col] : Rules.EMPTY;
        var classes = ['cell'];
        if (stone !== Rules.EMPTY) classes.push(colourName(stone));
        if (game && game.last && game.last.row === row && game.last.col === col) classes.push('last');
        if (game && game.line && game.line.some(function (c) { return c[0] === row && c[1] === col; })) classes.push('winning');
        cell.className = classes.join(' ');
        cell.disabled = !game || game.over || game.turn !== game.human || stone !== Rules.EMPTY;
        cell.setAttribute('aria-label', 'Row ' + (row + 1) + ', column ' + (col + 1) + ': ' + (stone === Rules.EMPTY ? 'empty' : colourName(stone)));
      }
    }
    renderTurn();
  }

  function renderTurn() {
    if (!game) {
      turnElement.className = 'turn';
      turnElement.textContent = 'Choose your colour to start. Black moves first.';
      return;
    }
    if (game.over) {
      turnElement.className = 'turn';
      turnElement.textContent = 'Game over.';
      return;
    }
    turnElement.className = 'turn ' + colourName(game.turn);
    turnElement.textContent = game.turn === game.human
      ? 'Your turn (' + colourName(game.turn) + ').'
      : 'Computer\'s turn (' + colourName(game.turn) + ')…';
  }

  function showMessage(text, kind) {
    messageElement.textContent = text;
    messageElement.className = kind ? 'message ' + kind : 'message';
  }

  function start(humanColour) {
    game = {
      board: Rules.createBoard(),
      human: humanColour,
      computer: Rules.opponent(humanColour),
      turn: Rules.BLACK,
      over: false,
      last: null,
      line: null,
      timer: null,
    };
    choiceElement.hidden = true;
    restartButton.hidden = false;
    showMessage('', '');
    render();
    if (game.turn === game.computer) scheduleComputer();
  }

  function play(row, col) {
    var colour = game.turn;
    Rules.placeStone(game.board, row, col, colour);
    game.last = { row: row, col: col };
    var line = Rules.winningLine(game.board, row, col);
    if (line) {
      game.over = true;
      game.line = line;
      if (colour === game.human) showMessage('You win with five in a row as ' + colourName(colour) + '!', 'win');
      else showMessage('The computer wins with five in a row as ' + colourName(colour) + '.', 'loss');
    } else if (Rules.isDraw(game.board)) {
      game.over = true;
      showMessage('Draw: the board is full and nobody has five in a row.', 'draw');
    } else {
      game.turn = Rules.opponent(colour);
    }
    render();
  }

  function scheduleComputer() {
    var current = game;
    current.timer = setTimeout(function () {
      current.timer = null;
      if (game !== current || current.over || current.turn !== current.computer) return;
      var move = AI.chooseMove(current.board, current.computer);
      if (move) play(move.row, move.col);
    }, AI_DELAY_MS);
  }

  function onCellClick(row, col) {
    if (!game || game.over || game.turn !== game.human) return;
    if (!Rules.isLegalMove(game.board, row, col)) return;
    play(row, col);
    if (!game.over) scheduleComputer();
  }

  function restart() {
    if (game && game.timer) clearTimeout(game.timer);
    game = null;
    choiceElement.hidden = false;
    restartButton.hidden = true;
    showMessage('', '');
    render();
  }

  playBlack.addEventListener('click', function () { start(Rules.BLACK); });
  playWhite.addEventListener('click', function () { start(Rules.WHITE); });
  restartButton.addEventListener('click', restart);

  buildBoard();
  restart();
})();
