"use strict";
const D = JSON.parse(document.getElementById("hcube-data").textContent);
const steps = D.steps;
const N = steps[0].state.length, K = steps[0].state[0].length;
const n = Math.round(Math.log2(N));
const svgNS = "http://www.w3.org/2000/svg";
const stage = document.getElementById("stage");
// A NEWS grid (hcube scatter): a ring drawn as a circle, a torus or mesh as a grid.
const G = D.grid;

// Node positions: bits 0-2 a cube in oblique projection, bit 3 a second cube
// beside the first, bit 4 a second row of cubes: neighbours stay linked.
const cellH = Math.max(4, Math.min(16, Math.floor(150 / K))), colW = 26, S = Math.max(120, K * cellH + 40);
function nodeXY(j) {
  if (G && G.kind === "ring") {
    const R = Math.max(S, N * (colW + 30) / (2 * Math.PI)), a = 2 * Math.PI * j / N - Math.PI / 2;
    return [60 + R + R * Math.cos(a), 40 + R + R * Math.sin(a)];
  }
  if (G) {
    const margin = G.kind === "torus" ? 0.4 * S : 0;  // room for the wrap-around links
    return [60 + margin + (j % G.z1) * 3.5 * colW, 40 + margin + Math.floor(j / G.z1) * (K * cellH + 60)];
  }
  const b = k => (j >> k) & 1;
  const x = 60 + b(0) * S + b(2) * 0.5 * S + b(3) * 2.3 * S;
  const y = 40 + (1 - b(1)) * S + (1 - b(2)) * 0.45 * S + b(4) * 2.1 * S;
  return [x, y];
}
let W = 0, H = 0;
for (let j = 0; j < N; ++j) { const [x, y] = nodeXY(j); W = Math.max(W, x + colW + 40); H = Math.max(H, y + K * cellH + 40); }
if (G && G.kind === "torus") { W += 0.4 * S; H += 0.4 * S; }  // room for the wrap-around links
stage.setAttribute("width", W); stage.setAttribute("height", H);
stage.setAttribute("viewBox", `0 0 ${W} ${H}`);
function cellXY(node, addr) { const [x, y] = nodeXY(node); return [x, y + addr * cellH]; }

// A word's colour: the node it must end on: D.home where the run names it (a
// redistribution's router copies leave the sources their data), else the node
// holding the value at the end. A value held twice there (the zeros of unused
// words) is grey.
const last = steps[steps.length - 1].state;
const key = v => JSON.stringify(v);
const finalNode = new Map();
if (D.home) {
  for (const [v, j] of D.home) finalNode.set(key(v), j);
} else {
  const seen = new Map();
  for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a) {
    const k = key(last[j][a]);
    seen.set(k, (seen.get(k) || 0) + 1);
    finalNode.set(k, j);
  }
  for (const [k, c] of seen) if (c > 1) finalNode.delete(k);
}
// Hues spread over the nodes that are some word's home (a redistribution's Q destinations).
const homes = [...new Set(finalNode.values())].sort((a, b) => a - b), rank = new Map(homes.map((j, i) => [j, i]));
function colour(v) {
  const j = finalNode.get(key(v));
  if (j === undefined) return "#e4e4e4";
  const r = rank.get(j);
  return `hsl(${Math.round(360 * r / homes.length)}, 70%, ${55 + 10 * (r % 2)}%)`;
}
function el(name, attrs, parent) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  (parent || stage).appendChild(e);
  return e;
}

// Links, drawn once; a cycle's dimensions are made busy (a grid's links, by its messages).
const links = [];
const linkKey = (a, b) => a < b ? `${a}-${b}` : `${b}-${a}`;
function gridNeighbour(j, dim) {
  const x = j % G.z1, y = Math.floor(j / G.z1), z = dim === 0 ? G.z1 : G.z2, c = dim === 0 ? x : y;
  if (c + 1 === z && G.kind === "mesh") return -1;
  return dim === 0 ? (x + 1) % G.z1 + G.z1 * y : x + G.z1 * ((y + 1) % G.z2);
}
if (G) for (let j = 0; j < N; ++j) for (let dim = 0; dim < (G.kind === "ring" ? 1 : 2); ++dim) {
  const p = gridNeighbour(j, dim);
  if (p < 0) continue;
  const [x1, y1] = nodeXY(j), [x2, y2] = nodeXY(p), mid = (K * cellH) / 2;
  const ax = x1 + colW / 2, ay = y1 + mid, bx = x2 + colW / 2, by = y2 + mid;
  // A torus's wrap-around link bows out past the border instead of crossing the grid.
  const wrap = G.kind === "torus" && ((dim === 0 && p % G.z1 === 0) || (dim === 1 && p < G.z1));
  const bow = 0.35 * S;
  const d = wrap ? (dim === 0 ? `M ${ax} ${ay} C ${ax + bow} ${ay - bow}, ${bx - bow} ${by - bow}, ${bx} ${by}`
                              : `M ${ax} ${ay} C ${ax - bow} ${ay + bow}, ${bx - bow} ${by - bow}, ${bx} ${by}`)
                 : `M ${ax} ${ay} L ${bx} ${by}`;
  links.push({ key: linkKey(j, p), line: el("path", { d, fill: "none", stroke: "#ccc", "stroke-width": 1.5 }) });
}
for (let j = 0; j < N && !G; ++j) for (let d = 0; d < n; ++d) {
  const p = j ^ (1 << d);
  if (p < j) continue;
  const [x1, y1] = nodeXY(j), [x2, y2] = nodeXY(p);
  const mid = (K * cellH) / 2;
  links.push({ d, line: el("line", { x1: x1 + colW / 2, y1: y1 + mid, x2: x2 + colW / 2, y2: y2 + mid,
                                     stroke: "#ccc", "stroke-width": 1.5 }) });
}
const cells = [];
for (let j = 0; j < N; ++j) {
  const [x, y] = nodeXY(j);
  el("rect", { x: x - 2, y: y - 2, width: colW + 4, height: K * cellH + 4, fill: "#fff", stroke: "#555" });
  el("text", { x: x + colW / 2, y: y - 6, "text-anchor": "middle", "font-size": 11, "font-family": "monospace" })
    .textContent = !G ? j.toString(2).padStart(n, "0") : G.kind === "ring" ? `${j}` : `${j % G.z1},${Math.floor(j / G.z1)}`;
  const col = [];
  for (let a = 0; a < K; ++a)
    col.push(el("rect", { x, y: y + a * cellH, width: colW, height: cellH - 1, stroke: "none" }));
  cells.push(col);
}
const arrows = el("g", {}), movers = el("g", {});

// The schedule table: a row a step after the initial state.
const sched = document.getElementById("sched");
{
  const head = sched.insertRow();
  head.innerHTML = G ? "<th>step</th><th>messages: node&rarr;node (elements)</th>"
                    : "<th>step</th>" + Array.from({ length: n }, (_, d) => `<th>dim ${d}</th>`).join("");
  for (let s = 1; s < steps.length; ++s) {
    const row = sched.insertRow();
    const cell = row.insertCell();
    cell.className = "step";
    cell.textContent = steps[s].label;
    const ex = steps[s].exchanges, msgs = steps[s].messages;
    if (msgs) {
      const list = row.insertCell();
      list.colSpan = G ? 1 : n;
      if (G) { list.style.whiteSpace = "normal"; list.style.textAlign = "left"; }
      list.textContent = msgs.map(m => `${m.src_node}\u2192${m.dst_node} (${m.elements})`).join("  ");
      continue;
    }
    if (!ex) { cell.colSpan = n + 1; continue; }
    for (let d = 0; d < n; ++d) {
      const on = ex.filter(e => e.dim === d).map(e => e.addr === e.peer_addr ? `${e.addr}` : `${e.addr}\u2192${e.peer_addr}`);
      row.insertCell().textContent = on.join(" ");
    }
  }
}

// Counters up to step s: cycles, element-hops (a word crossing a link), busy links.
function counters(s) {
  if (G) {
    let cycles = 0, hops = 0;
    for (let t = 1; t <= s; ++t) if (steps[t].messages) { ++cycles; for (const m of steps[t].messages) hops += m.elements; }
    const msgs = steps[s].messages, total = steps.filter(t => t.messages).length;
    return `routing cycles ${cycles} of ${total}` + (steps[s].round ? ` (round ${steps[s].round})` : "") +
           ` | element-hops ${hops} | ` + (msgs ? `links busy this cycle: ${msgs.length} of ${G.directed_links}` : "no links busy");
  }
  if (steps.some(t => t.messages)) {
    let routed = 0, moved = 0;
    for (let t = 1; t <= s; ++t) if (steps[t].messages) { ++routed; for (const m of steps[t].messages) moved += m.elements; }
    const msgs = steps[s].messages, total = steps.filter(t => t.messages).length;
    return `router steps ${routed} of ${total} | elements delivered ${moved} | ` +
           (msgs ? `${msgs.length} message(s) this step, one sent and one received a node` : "no messages (local step)");
  }
  let cycles = 0, hops = 0;
  for (let t = 1; t <= s; ++t) if (steps[t].exchanges) { ++cycles; hops += steps[t].exchanges.length * N; }
  const ex = steps[s].exchanges;
  const dims = ex ? new Set(ex.map(e => e.dim)).size : 0;
  const total = steps.filter(t => t.exchanges).length;
  return `routing cycles ${cycles} of ${total} | element-hops ${hops} | ` +
         (ex ? `links busy this cycle: ${dims * N / 2} of ${n * N / 2} (${Math.round(100 * dims / n)}%), ` +
               `${ex.length} exchange(s)` : "no links busy (local step)");
}

let current = 0, playing = false, timer = null, anim = null;
const slider = document.getElementById("slider"), speed = document.getElementById("speed");
slider.max = steps.length - 1;
document.getElementById("title").textContent = D.title;
document.getElementById("subtitle").textContent = D.subtitle;

// A redistribution uses a source region (words [0, S) of the P sources) and a
// destination region (words [O, O + D) of the Q destinations); the rest is blank.
// So are a grid's words that no cycle has written yet.
// A grid's words beyond the input hold nothing until a cycle first writes them.
const firstWrite = G ? Array.from({ length: N }, () => new Array(K).fill(Infinity)) : null;
if (G) steps.forEach((t, s) => { for (const [, , j, a] of t.moves || []) firstWrite[j][a] = Math.min(firstWrite[j][a], s); });
function used(j, a, s) {
  if (G) return a < G.input_words || firstWrite[j][a] <= s;
  const R = D.regions;
  if (!R) return true;
  if (j < R.source_nodes && a < R.source_words) return true;
  return j >= R.first_destination_node && j < R.first_destination_node + R.destination_nodes &&
         a >= R.first_destination_word && a < R.first_destination_word + R.destination_words;
}
function paint(s) {
  const st = steps[s].state;
  for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a)
    cells[j][a].setAttribute("fill", used(j, a, s) ? colour(st[j][a]) : "#f7f7f7");
  const ex = steps[s].exchanges, busy = new Set(ex ? ex.map(e => e.dim) : []);
  const busyLinks = new Set(G ? (steps[s].messages || []).map(m => linkKey(m.src_node, m.dst_node)) : []);
  for (const l of links) {
    const on = G ? busyLinks.has(l.key) : busy.has(l.d);
    l.line.setAttribute("stroke", on ? "#d33" : "#ccc");
    l.line.setAttribute("stroke-width", on ? 4 : 1.5);
  }
  arrows.replaceChildren();
  for (const m of G ? [] : steps[s].messages || []) {  // a router message goes from node to node, over several links
    const [x1, y1] = nodeXY(m.src_node), [x2, y2] = nodeXY(m.dst_node), mid = (K * cellH) / 2;
    el("line", { x1: x1 + colW / 2, y1: y1 + mid, x2: x2 + colW / 2, y2: y2 + mid, stroke: "#d33",
                 "stroke-width": 3, "stroke-dasharray": "6 4" }, arrows);
  }
  for (const r of sched.rows) r.classList.remove("current");
  if (s > 0) sched.rows[s].classList.add("current");
  document.getElementById("step-name").textContent = `${s} / ${steps.length - 1}: ${steps[s].label}`;
  document.getElementById("counters").textContent = counters(s);
  document.getElementById("memory").textContent = JSON.stringify(st);
  document.body.dataset.step = s;
  slider.value = s;
}

// Moves from state s-1 to s: every cell whose word changed receives it from
// where it was (a value held once before), sliding there; a copy leaves its
// source as it was.
function animate(s, done) {
  if (anim) cancelAnimationFrame(anim.frame);
  movers.replaceChildren();
  const before = steps[s - 1].state, after = steps[s].state, was = new Map(), count = new Map(), moves = [];
  // A step that names its copies (a grid cycle): each word slides from where it was read.
  for (const [j0, a0, j1, a1] of steps[s].moves || []) {
    const [x0, y0] = cellXY(j0, a0), [x1, y1] = cellXY(j1, a1);
    moves.push({ x0, y0, x1, y1, r: el("rect", { width: colW, height: cellH - 1, fill: colour(after[j1][a1]),
                                                  stroke: "#000", "stroke-width": 0.5 }, movers) });
  }
  for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a) {
    const k = key(before[j][a]);
    was.set(k, [j, a]);
    count.set(k, (count.get(k) || 0) + 1);
  }
  if (!steps[s].moves) for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a) {
    const k = key(after[j][a]);
    if (k === key(before[j][a]) || count.get(k) !== 1) continue;
    const [j0, a0] = was.get(k), [x0, y0] = cellXY(j0, a0), [x1, y1] = cellXY(j, a);
    moves.push({ x0, y0, x1, y1, r: el("rect", { width: colW, height: cellH - 1, fill: colour(after[j][a]),
                                                  stroke: "#000", "stroke-width": 0.5 }, movers) });
  }
  const ms = 900 / Math.pow(2, Number(speed.value)), t0 = performance.now();
  anim = { frame: 0 };
  const frame = now => {
    const t = Math.min(1, (now - t0) / ms), e = t * t * (3 - 2 * t);
    for (const m of moves) { m.r.setAttribute("x", m.x0 + (m.x1 - m.x0) * e); m.r.setAttribute("y", m.y0 + (m.y1 - m.y0) * e); }
    if (t < 1) { anim.frame = requestAnimationFrame(frame); return; }
    movers.replaceChildren();
    anim = null;
    paint(s);
    if (done) done();
  };
  anim.frame = requestAnimationFrame(frame);
}

function go(s, animated) {
  s = Math.max(0, Math.min(steps.length - 1, s));
  const forward = s === current + 1;
  current = s;
  if (animated && forward && s > 0) animate(s, playing ? schedule : null); else { if (anim) { cancelAnimationFrame(anim.frame); anim = null; movers.replaceChildren(); } paint(s); }
}
function schedule() {
  clearTimeout(timer);
  if (!playing) return;
  if (current >= steps.length - 1) { setPlaying(false); return; }
  timer = setTimeout(() => go(current + 1, true), 250 / Math.pow(2, Number(speed.value)));
}
function setPlaying(on) {
  playing = on;
  document.getElementById("play").innerHTML = on ? "||" : "&#x25B6;";
  if (on) { if (current >= steps.length - 1) go(0, false); schedule(); } else clearTimeout(timer);
}
document.getElementById("first").onclick = () => { setPlaying(false); go(0, false); };
document.getElementById("last").onclick = () => { setPlaying(false); go(steps.length - 1, false); };
document.getElementById("back").onclick = () => { setPlaying(false); go(current - 1, false); };
document.getElementById("fwd").onclick = () => { setPlaying(false); go(current + 1, true); };
document.getElementById("play").onclick = () => setPlaying(!playing);
slider.oninput = () => { setPlaying(false); go(Number(slider.value), false); };
function onKey(ev) {
  if (ev.key === "ArrowRight") { setPlaying(false); go(current + 1, true); }
  else if (ev.key === "ArrowLeft") { setPlaying(false); go(current - 1, false); }
  else if (ev.key === " ") { ev.preventDefault(); setPlaying(!playing); }
  else if (ev.key === "Home") { setPlaying(false); go(0, false); }
  else if (ev.key === "End") { setPlaying(false); go(steps.length - 1, false); }
}
document.addEventListener("keydown", onKey);

// ?step=end or ?step=k shows that step at once; ?keys=ArrowRight,ArrowLeft,...
// then presses those keys (the tests use both).
const params = new URLSearchParams(location.search), asked = params.get("step");
go(asked === "end" ? steps.length - 1 : asked !== null && /^\d+$/.test(asked) ? Number(asked) : 0, false);
for (const k of (params.get("keys") || "").split(",").filter(k => k))
  document.dispatchEvent(new KeyboardEvent("keydown", { key: k === "Space" ? " " : k }));
