#!/usr/bin/env node
// An example wordarena client in Node.js, written from the contract alone (protos/wordarena/v1
// and protos/README.md). It plays one complete classic game between two guests, watched by a
// third, and checks what the contract promises along the way:
//   - every StreamMatch delivers seqs strictly increasing, without duplicates or gaps;
//   - a dropped stream resumed with after_seq = the last seq seen misses and repeats nothing;
//   - nothing a player receives carries the other player's rack (spectators see no rack at all);
//   - a refused SubmitTurn carries google.rpc.Status details in grpc-status-details-bin
//     (StaleSeq for a stale expected_seq, BadRequest for expected_seq 0).
// Usage: node clients/node-example/play.js LOBBY_HOST:PORT
// Prints one JSON line (the summary) and exits 0, or prints "play.js: FAILED: ..." and exits 1.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = path.resolve(__dirname, '../../protos');
// google/rpc/*.proto are not in protos/: they come from the google-proto-files package.
const GOOGLE_PROTOS = path.dirname(require.resolve('google-proto-files/package.json'));
const DEADLINE_MS = 15000; // per unary call
const GAME_TIMEOUT_MS = 120000; // the whole game
const TRY_WORDS_TURNS = 6; // look for plays only in the first turns, then pass/exchange to the end

// keepCase keeps the .proto field names (match_id, after_seq...); longs as Number is fine for
// seqs; enums as their names; defaults so that absent scalars read as 0 / '' / [].
const LOAD = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(
  ['wordarena/v1/lobby.proto', 'wordarena/v1/match.proto'], { ...LOAD, includeDirs: [PROTOS] },
)).wordarena.v1;
// Error details: google.rpc.Status and the detail messages, each with a deserialize() of its own.
const errorTypes = protoLoader.loadSync(
  ['google/rpc/status.proto', 'google/rpc/error_details.proto', 'wordarena/v1/errors.proto'],
  { ...LOAD, includeDirs: [PROTOS, GOOGLE_PROTOS] },
);

class CheckFailed extends Error {}
const check = (ok, msg) => { if (!ok) throw new CheckFailed(msg); };
const checksPassed = new Set();

function meta(token) {
  const md = new grpc.Metadata();
  if (token) md.set('authorization', `Bearer ${token}`);
  return md;
}

function unary(client, method, req, token) {
  return new Promise((resolve, reject) => {
    client[method](req, meta(token), { deadline: Date.now() + DEADLINE_MS },
      (err, res) => (err ? reject(err) : resolve(res)));
  });
}

// google.rpc.Status from a refused call's trailer, with each Any detail unpacked by its type_url.
function statusDetails(err) {
  const bin = err.metadata && err.metadata.get('grpc-status-details-bin')[0];
  check(bin, `${err.code} ${err.details}: no grpc-status-details-bin trailer`);
  const st = errorTypes['google.rpc.Status'].deserialize(bin);
  const details = {};
  for (const any of st.details) {
    const name = any.type_url.slice(any.type_url.lastIndexOf('/') + 1); // type.googleapis.com/<name>
    const type = errorTypes[name]; // undefined for types we do not know: ignore them
    if (type) details[name] = type.deserialize(any.value);
  }
  return { code: st.code, message: st.message, details };
}

async function expectRefusal(promise, wantCode, wantDetail) {
  try {
    await promise;
  } catch (err) {
    check(err.code === wantCode, `expected status ${wantCode}, got ${err.code} ${err.details}`);
    const st = statusDetails(err);
    check(st.code === wantCode, `google.rpc.Status code ${st.code} != gRPC status ${wantCode}`);
    check(st.details[wantDetail], `no ${wantDetail} among the details: ${Object.keys(st.details)}`);
    return st.details[wantDetail];
  }
  throw new CheckFailed(`expected a refusal carrying ${wantDetail}, the call succeeded`);
}

const rackLetters = (rack) => (rack && rack.tiles.length
  ? rack.tiles.map((t) => (t.is_blank ? '?' : t.letter)).sort().join('') : '');

// One viewer's StreamMatch: checks seq order as events arrive, and can be dropped and resumed.
class Follower {
  constructor(match, matchId, name, token, seat) {
    Object.assign(this, { match, matchId, name, token, seat });
    this.events = []; // every stored event received, across reconnections, in arrival order
    this.lastSeq = 0;
    this.gameOver = null;
    this.racksSeen = []; // [seq, letters, where] of every rack this viewer received
    this.waiters = [];
    this.error = null;
  }

  open(afterSeq) {
    const call = this.match.StreamMatch({ match_id: this.matchId, after_seq: afterSeq }, meta(this.token));
    this.call = call;
    call.on('data', (msg) => { if (call === this.call) this.onEvent(msg.event); });
    call.on('error', (err) => {
      if (call === this.call && err.code !== grpc.status.CANCELLED) this.error = err;
      this.wake();
    });
  }

  drop() { const c = this.call; this.call = null; c.cancel(); return this.lastSeq; }

  onEvent(e) {
    try {
      if (e.kind === 'heartbeat') return; // never stored: repeats the latest seq, not an event
      // No chat is sent in this game, so every stored event is visible to every viewer: seqs
      // must be exactly last+1 (the contract allows gaps only for events hidden from a viewer).
      check(e.seq === this.lastSeq + 1, `${this.name}: seq ${e.seq} after ${this.lastSeq} (duplicate or gap)`);
      this.lastSeq = e.seq;
      this.events.push(e);
      if (process.env.PLAY_VERBOSE && this.name === 'A') { // the log once, as player A sees it
        console.error(`#${e.seq} ${e.kind} scores=${e.scores} ${e.turn_played ? e.turn_played.notation : ''}`);
      }
      if (e.kind === 'game_over') this.gameOver = e.game_over;
      this.checkPrivacy(e);
    } catch (err) { this.error = err; }
    this.wake();
  }

  // A rack travels only to its holder: viewer_rack only on the holder's own events, exchanged
  // tiles only in the exchanger's view, nothing for spectators. (GameOver's remaining_rack is
  // public by design and is not looked at.)
  checkPrivacy(e) {
    const actor = e[e.kind] && typeof e[e.kind].seat === 'number' ? e[e.kind].seat : null;
    if (e.viewer_rack && e.viewer_rack.tiles.length) {
      check(this.seat !== null, `${this.name} (spectator) got a rack at seq ${e.seq}`);
      check(e.kind === 'match_started' || actor === this.seat,
        `${this.name} got viewer_rack on seat ${actor}'s ${e.kind} (seq ${e.seq})`);
      this.racksSeen.push([e.seq, rackLetters(e.viewer_rack), `event ${e.seq}`]);
    }
    if (e.kind === 'tiles_exchanged' && e.tiles_exchanged.returned.length) {
      check(actor === this.seat, `${this.name} saw the tiles seat ${actor} returned (seq ${e.seq})`);
    }
  }

  wake() { for (const w of this.waiters.splice(0)) w(); }

  // Resolves once this stream has seen seq (or GameOver); rejects on a stream error or timeout.
  async waitFor(seq) {
    const until = Date.now() + DEADLINE_MS;
    while (!(this.lastSeq >= seq || this.gameOver)) {
      if (this.error) throw this.error;
      check(Date.now() < until, `${this.name}: stream stuck at seq ${this.lastSeq}, waiting for ${seq}`);
      await new Promise((r) => { this.waiters.push(r); setTimeout(r, 500); });
    }
    if (this.error) throw this.error;
  }
}

// A view of one's own: only the viewer's rack is filled, in MatchView.rack and in the CGP line.
function checkView(f, view) {
  if (f.seat === null) {
    check(!view.rack || !view.rack.tiles.length, `${f.name} (spectator) got a rack in GetMatch`);
  } else {
    f.racksSeen.push([view.last_seq, rackLetters(view.rack), `GetMatch at ${view.last_seq}`]);
  }
  if (view.status !== 'MATCH_STATUS_IN_PROGRESS' || !view.cgp) return;
  // CGP racks: from the seat to move on, in playing order; only the viewer's own one filled.
  const racks = view.cgp.split(' ')[1].split('/');
  const n = view.seats.length;
  racks.forEach((r, i) => {
    const seat = (view.to_move_seat + i) % n;
    if (seat === f.seat) check(r.split('').sort().join('') === rackLetters(view.rack), `${f.name}: CGP rack ${r} is not its own`);
    else check(r === '', `${f.name}: CGP shows seat ${seat}'s rack "${r}"`);
  });
}

// The simplest strategy that still plays words now and then: ask PreviewPlay about two-letter
// words through the start square (first move) or one-tile hooks next to a board tile; pass or
// exchange otherwise. The server is the lexicon: no word list is needed here.
async function chooseMove(match, f, view, turn) {
  const letters = view.rack.tiles.filter((t) => !t.is_blank && t.letter).map((t) => t.letter);
  const candidates = [];
  const tiles = view.board.squares.filter((s) => s.tile && s.tile.letter);
  if (turn < TRY_WORDS_TURNS && !tiles.length && view.board.start_square) {
    const { row, col } = view.board.start_square;
    for (let i = 0; i < letters.length; i++) {
      for (let j = 0; j < letters.length; j++) {
        if (i !== j) candidates.push([[row, col, letters[i]], [row, col + 1, letters[j]]]);
      }
    }
  } else if (turn < TRY_WORDS_TURNS) {
    const taken = new Set(tiles.map((s) => `${s.square.row},${s.square.col}`));
    for (const s of tiles) {
      for (const [dr, dc] of [[0, 1], [1, 0], [0, -1], [-1, 0]]) {
        const r = s.square.row + dr; const c = s.square.col + dc;
        if (r < 0 || c < 0 || r >= view.board.rows || c >= view.board.cols || taken.has(`${r},${c}`)) continue;
        for (const l of new Set(letters)) candidates.push([[r, c, l]]);
      }
    }
  }
  for (const cand of candidates.slice(0, 25)) {
    const placements = cand.map(([row, col, letter]) => ({ square: { row, col }, letter }));
    const pv = await unary(match, 'PreviewPlay', { match_id: view.match_id, placements }, f.token);
    if (pv.legal) return { play: { placements } };
  }
  const me = view.seats[f.seat];
  if (turn % 2 === 1 && view.bag_count >= 7 && me.exchanges_left !== 0 && view.rack.tiles.length) {
    return { exchange: { tiles: [{ letter: view.rack.tiles[0].letter }] } };
  }
  return { pass_turn: {} };
}

async function main() {
  const lobbyAddr = process.argv[2];
  check(lobbyAddr, 'usage: node play.js LOBBY_HOST:PORT');
  const lobby = new pkg.LobbyService(lobbyAddr, grpc.credentials.createInsecure());
  const tag = crypto.randomBytes(3).toString('hex'); // unique names: a guest name must be free
  const [a, b, w] = await Promise.all(['a', 'b', 'w'].map((n) => unary(lobby, 'SignInGuest',
    { display_name: `node-${n}-${tag}` })));

  // A opens a public two-seat classic table that allows spectators; B's join fills it, and a
  // WHEN_FULL table starts by itself. The lobby creates the match on a match server: poll the
  // table until it says where.
  const created = await unary(lobby, 'CreateTable', {
    settings: {
      ruleset: { ruleset_id: 'classic', language: 'en' }, seats: 2,
      options: { spectators_allowed: true, unrated: true },
      visibility: 'VISIBILITY_PUBLIC', start_policy: 'START_POLICY_WHEN_FULL',
    },
    request_id: crypto.randomUUID(),
  }, a.token.token);
  const tableId = created.table.table_id;
  await unary(lobby, 'JoinTable', { table_id: tableId, request_id: crypto.randomUUID() }, b.token.token);
  let table;
  for (let i = 0; ; i++) {
    table = (await unary(lobby, 'GetTable', { table_id: tableId }, w.token.token)).table;
    if (table.status === 'TABLE_STATUS_STARTED' && table.match) break;
    check(i < 100 && table.status !== 'TABLE_STATUS_CLOSED', `table ${tableId} did not start (${table.status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const matchId = table.match.match_id;
  const match = new pkg.MatchService(table.match.address, grpc.credentials.createInsecure());

  // Each viewer: its GetMatch view tells its seat (unset for the spectator), then a stream from
  // the first event, so that the three logs can be compared in full at the end.
  const viewers = [];
  for (const [name, who] of [['A', a], ['B', b], ['spectator', w]]) {
    const view = (await unary(match, 'GetMatch', { match_id: matchId }, who.token.token)).match;
    const seat = view.viewer_seat === undefined || view.viewer_seat === null ? null : view.viewer_seat;
    const f = new Follower(match, matchId, name, who.token.token, seat);
    checkView(f, view);
    f.open(0);
    viewers.push(f);
  }
  const [fa, fb, fw] = viewers;
  check(fa.seat !== null && fb.seat !== null && fw.seat === null, 'seats: A and B seated, the spectator not');
  const players = [fa, fb];
  const bySeat = (s) => players.find((p) => p.seat === s);

  let turns = 0; let resumedAt = null; let gameOverSeq = null;
  const moves = { play: 0, exchange: 0, pass_turn: 0 };
  const gameTimer = setTimeout(() => { console.error('play.js: FAILED: game timed out'); process.exit(1); }, GAME_TIMEOUT_MS);
  while (gameOverSeq === null) {
    // The spectator's view says whose turn it is; that player reads its own view and moves.
    const pub = (await unary(match, 'GetMatch', { match_id: matchId }, fw.token)).match;
    check(pub.status === 'MATCH_STATUS_IN_PROGRESS', `match ${pub.status} without a GameOver seen`);
    checkView(fw, pub);
    const mover = bySeat(pub.to_move_seat);
    const view = (await unary(match, 'GetMatch', { match_id: matchId }, mover.token)).match;
    checkView(mover, view);

    if (turns === 1) {
      // After one turn game_seq > 1, so expected_seq 1 is stale. (Early: classic ends after
      // three scoreless turns in a row, so a game may last only three turns.) Decode two refusals. Refused requests keep nothing, so the real turn below still goes in.
      const stale = await expectRefusal(unary(match, 'SubmitTurn', { match_id: matchId, expected_seq: 1,
        request_id: crypto.randomUUID(), move: { pass_turn: {} } }, mover.token), grpc.status.FAILED_PRECONDITION,
      'wordarena.v1.StaleSeq');
      check(stale.expected_seq === 1 && stale.game_seq === view.game_seq && stale.current_seq >= view.game_seq,
        `StaleSeq ${JSON.stringify(stale)} does not match the view (game_seq ${view.game_seq})`);
      const bad = await expectRefusal(unary(match, 'SubmitTurn', { match_id: matchId, expected_seq: 0,
        request_id: crypto.randomUUID(), move: { pass_turn: {} } }, mover.token), grpc.status.INVALID_ARGUMENT,
      'google.rpc.BadRequest');
      check(bad.field_violations.some((v) => v.field === 'expected_seq'), `BadRequest names ${JSON.stringify(bad)}`);
      checksPassed.add('error_details_decoded');
    }

    const move = await chooseMove(match, mover, view, turns);
    // expected_seq: the latest seq this player received, from its stream (or its view if later).
    const expected = Math.max(mover.lastSeq, view.last_seq);
    const res = await unary(match, 'SubmitTurn', { match_id: matchId, expected_seq: expected,
      request_id: crypto.randomUUID(), move }, mover.token);
    turns += 1; moves[Object.keys(move)[0]] += 1;
    if (res.rack) mover.racksSeen.push([res.last_seq, rackLetters(res.rack), `SubmitTurn at ${res.last_seq}`]);
    const over = res.events.find((e) => e.kind === 'game_over');
    if (over) gameOverSeq = over.seq;

    await Promise.all(viewers.filter((f) => f.call).map((f) => f.waitFor(res.last_seq)));
    if (turns === 1) {
      // Drop B's stream (it has seen this turn); the next turn happens while it is away; then
      // resume after the last seq it saw.
      resumedAt = fb.drop();
    } else if (fb.call === null) {
      check(resumedAt < res.last_seq, 'no event happened while B was away');
      fb.open(resumedAt);
      await fb.waitFor(res.last_seq);
    }
  }
  await Promise.all(viewers.map((f) => f.waitFor(gameOverSeq)));
  clearTimeout(gameTimer);
  for (const f of viewers) f.drop();
  checksPassed.add('seq_order');

  // Every stream holds the whole log once: 1..last_seq of GetMatch, identical for all viewers,
  // B's included across its reconnection.
  const final = (await unary(match, 'GetMatch', { match_id: matchId }, fa.token)).match;
  check(final.status === 'MATCH_STATUS_FINISHED', `final status ${final.status}`);
  for (const f of viewers) {
    const seqs = f.events.map((e) => e.seq);
    check(seqs.length === final.last_seq && seqs.every((s, i) => s === i + 1),
      `${f.name}: saw ${seqs.length} events, GetMatch.last_seq is ${final.last_seq}`);
    check(f.gameOver, `${f.name}: no GameOver on its stream`);
  }
  const resumedEvents = fb.events.filter((e) => e.seq > resumedAt).length;
  check(resumedAt !== null && resumedEvents > 0, 'the resumed stream got nothing');
  checksPassed.add('resume_no_loss_no_repeat');

  // No rack a player received is the opponent's rack at that moment (the opponent's own stream
  // is the authority for its rack). Together with checkPrivacy/checkView: opponent racks never leak.
  for (const p of players) {
    const q = players.find((x) => x !== p);
    const qRacks = q.events.filter((e) => e.viewer_rack && e.viewer_rack.tiles.length)
      .map((e) => [e.seq, rackLetters(e.viewer_rack)]);
    const qRackAt = (seq) => { let r = null; for (const [s, l] of qRacks) if (s <= seq) r = l; return r; };
    for (const [seq, letters, where] of p.racksSeen) {
      const theirs = qRackAt(seq);
      check(!letters || letters !== theirs, `${p.name} received ${q.name}'s rack ${theirs} (${where})`);
    }
  }
  checksPassed.add('no_opponent_rack');

  const go = fa.gameOver;
  console.log(JSON.stringify({
    ok: true, match_id: matchId, turns, moves, last_seq: final.last_seq,
    events_seen: Object.fromEntries(viewers.map((f) => [f.name, f.events.length])),
    resumed_at: resumedAt, events_after_resume: resumedEvents,
    game_over: { reason: go.reason, scores: go.final_scores.map((s) => s.final_score), winners: go.winner_seats },
    checks_passed: [...checksPassed],
  }));
}

main().then(() => process.exit(0), (err) => {
  const what = err instanceof CheckFailed ? err.message
    : err.code !== undefined ? `gRPC ${err.code} ${err.details}` : (err.stack || String(err));
  console.error(`play.js: FAILED: ${what}`);
  process.exit(1);
});
