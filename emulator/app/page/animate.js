"use strict";
// The page replays the states a run recorded (D.machines: one run, or two
// side by side with --algorithm A,B). A machine's words are ids into its
// `values`; its first state is `initial`, every later step lists the cells it
// changed as [cell, id, ...] (cell = node * K + address). Nothing about the
// algorithm is derived here: the narration comes with the data.
const D = JSON.parse(document.getElementById("hcube-data").textContent);
const svgNS = "http://www.w3.org/2000/svg";
// Okabe & Ito's palette, told apart by the colour-blind: a word's colour is its
// destination's rank mod 8, and the number drawn in its cell says which node.
const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999"];
const DARK = new Set([4, 5, 6]);  // white text on these
const lengthOfRun = Math.max(...D.machines.map(M => M.steps.length));
const speed = document.getElementById("speed"), slider = document.getElementById("slider");
const zoom = document.getElementById("zoom");
const hover = document.getElementById("hover");

function el(name, attrs, parent) {
  const e = document.createElementNS(svgNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

function makeMachine(M, index) {
  const suffix = index === 0 ? "" : `-${index + 1}`;
  const section = document.getElementById("machine-template").content.firstElementChild.cloneNode(true);
  section.id = "machine" + suffix;
  const part = cls => { const e = section.querySelector("." + cls); e.id = cls + suffix; return e; };
  const stage = part("stage"), matrix = part("matrix"), sched = part("sched"), memory = part("memory");
  const narration = part("narration"), countersEl = part("counters");
  section.querySelector(".machine-title").textContent =
    D.machines.length > 1 ? `${M.title}, algorithm ${M.algorithm}` : M.title;
  document.getElementById("machines").appendChild(section);

  const steps = M.steps, N = M.N, K = M.K, n = Math.round(Math.log2(N));
  // A NEWS grid (hcube scatter): a ring drawn as a circle, a torus or mesh as a grid.
  const G = M.grid;
  // Every state as an Int32Array of word ids, rebuilt from the changes.
  const states = [Int32Array.from(M.initial)];
  for (let s = 1; s < steps.length; ++s) {
    const st = states[s - 1].slice(), ch = steps[s].changes;
    for (let i = 0; i < ch.length; i += 2) st[ch[i]] = ch[i + 1];
    states.push(st);
  }
  const changed = steps.map(t => { const c = new Set(); const ch = t.changes || []; for (let i = 0; i < ch.length; i += 2) c.add(ch[i]); return c; });
  // Where each word started: its label (j|i), as the paper writes it.
  const origin = new Map();
  states[0].forEach((id, c) => { if (!origin.has(id)) origin.set(id, c); });

  // A word's destination: M.home where the run names it (a redistribution's
  // router copies leave the sources their data), else the node holding it at
  // the end. A word held twice there (the zeros of unused words) has none.
  const last = states[states.length - 1];
  const finalNode = new Map();
  if (M.home) {
    for (const [id, j] of M.home) finalNode.set(id, j);
  } else {
    const seen = new Map();
    last.forEach((id, c) => { seen.set(id, (seen.get(id) || 0) + 1); finalNode.set(id, Math.floor(c / K)); });
    for (const [id, count] of seen) if (count > 1) finalNode.delete(id);
  }
  const homes = [...new Set(finalNode.values())].sort((a, b) => a - b), rank = new Map(homes.map((j, i) => [j, i]));
  function colourIndex(id) { const j = finalNode.get(id); return j === undefined ? -1 : rank.get(j) % PALETTE.length; }
  function colour(id) { const i = colourIndex(id); return i < 0 ? "#e4e4e4" : PALETTE[i]; }
  function ink(id) { return DARK.has(colourIndex(id)) ? "#fff" : "#000"; }
  function describe(id) {
    const c = origin.get(id), j = finalNode.get(id);
    return `word (${Math.floor(c / K)}|${c % K}) = ${JSON.stringify(M.values[id])}` +
           (j === undefined ? ", no single destination" : `, bound for node ${j}`);
  }

  // --- the cube (d <= 5) or the grid ----------------------------------------
  const drawCube = G ? N <= 64 : n <= 5;
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
    // Bits 0-2 a cube in oblique projection, bit 3 a second cube beside the
    // first, bit 4 a second row of cubes: neighbours stay linked.
    const b = k => (j >> k) & 1;
    const x = 60 + b(0) * S + b(2) * 0.5 * S + b(3) * 2.3 * S;
    const y = 40 + (1 - b(1)) * S + (1 - b(2)) * 0.45 * S + b(4) * 2.1 * S;
    return [x, y];
  }
  function cellXY(node, addr) { const [x, y] = nodeXY(node); return [x, y + addr * cellH]; }
  const links = [], cells = [], labels = [];
  let arrows = null, movers = null;
  const linkKey = (a, b) => a < b ? `${a}-${b}` : `${b}-${a}`;
  if (drawCube) {
    let W = 0, H = 0;
    for (let j = 0; j < N; ++j) { const [x, y] = nodeXY(j); W = Math.max(W, x + colW + 40); H = Math.max(H, y + K * cellH + 40); }
    if (G && G.kind === "torus") { W += 0.4 * S; H += 0.4 * S; }
    stage.setAttribute("width", W); stage.setAttribute("height", H);
    stage.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const linkLayer = el("g", {}, stage), nodeLayer = el("g", {}, stage);
    const dimLayer = el("g", {}, stage);  // drawn last: no column hides a dimension's name
    const mid = (K * cellH) / 2;
    function gridNeighbour(j, dim) {
      const x = j % G.z1, y = Math.floor(j / G.z1), z = dim === 0 ? G.z1 : G.z2, c = dim === 0 ? x : y;
      if (c + 1 === z && G.kind === "mesh") return -1;
      return dim === 0 ? (x + 1) % G.z1 + G.z1 * y : x + G.z1 * ((y + 1) % G.z2);
    }
    if (G) for (let j = 0; j < N; ++j) for (let dim = 0; dim < (G.kind === "ring" ? 1 : 2); ++dim) {
      const p = gridNeighbour(j, dim);
      if (p < 0) continue;
      const [x1, y1] = nodeXY(j), [x2, y2] = nodeXY(p);
      const ax = x1 + colW / 2, ay = y1 + mid, bx = x2 + colW / 2, by = y2 + mid;
      // A torus's wrap-around link bows out past the border instead of crossing the grid.
      const wrap = G.kind === "torus" && ((dim === 0 && p % G.z1 === 0) || (dim === 1 && p < G.z1));
      const bow = 0.35 * S;
      const d = wrap ? (dim === 0 ? `M ${ax} ${ay} C ${ax + bow} ${ay - bow}, ${bx - bow} ${by - bow}, ${bx} ${by}`
                                  : `M ${ax} ${ay} C ${ax - bow} ${ay + bow}, ${bx - bow} ${by - bow}, ${bx} ${by}`)
                     : `M ${ax} ${ay} L ${bx} ${by}`;
      links.push({ key: linkKey(j, p), line: el("path", { d, fill: "none", stroke: "#ccc", "stroke-width": 1.5 }, linkLayer) });
    }
    for (let j = 0; j < N && !G; ++j) for (let d = 0; d < n; ++d) {
      const p = j ^ (1 << d);
      if (p < j) continue;
      const [x1, y1] = nodeXY(j), [x2, y2] = nodeXY(p);
      links.push({ d, line: el("line", { x1: x1 + colW / 2, y1: y1 + mid, x2: x2 + colW / 2, y2: y2 + mid,
                                         stroke: "#ccc", "stroke-width": 1.5 }, linkLayer) });
      // Node 0's links name their dimension: every parallel link is the same one.
      if (j === 0) {
        const t = el("text", { x: (x1 + x2) / 2 + colW / 2, y: (y1 + y2) / 2 + mid - 5, "text-anchor": "middle",
                               "font-size": 12, "font-weight": "bold", fill: "#2b3a55", stroke: "#fff",
                               "stroke-width": 4, "paint-order": "stroke" }, dimLayer);
        t.textContent = `dim ${d}`;
      }
    }
    const wordLabels = cellH >= 10;
    for (let j = 0; j < N; ++j) {
      const [x, y] = nodeXY(j);
      el("rect", { x: x - 2, y: y - 2, width: colW + 4, height: K * cellH + 4, fill: "#fff", stroke: "#555" }, nodeLayer);
      // The node's address above its column, on a white halo so that links passing behind it leave it legible.
      el("text", { x: x + colW / 2, y: y - 6, "text-anchor": "middle", "font-size": 11, "font-family": "monospace",
                   stroke: "#fff", "stroke-width": 4, "paint-order": "stroke" }, nodeLayer)
        .textContent = !G ? j.toString(2).padStart(n, "0") : G.kind === "ring" ? `${j}` : `${j % G.z1},${Math.floor(j / G.z1)}`;
      const col = [], lab = [];
      for (let a = 0; a < K; ++a) {
        col.push(el("rect", { x, y: y + a * cellH, width: colW, height: cellH - 1, stroke: "none" }, nodeLayer));
        if (wordLabels) lab.push(el("text", { x: x + colW / 2, y: y + a * cellH + cellH - 4, "text-anchor": "middle",
                                               "font-size": Math.min(11, cellH - 3), "font-family": "monospace",
                                               "pointer-events": "none" }, nodeLayer));
      }
      cells.push(col); labels.push(lab);
    }
    arrows = el("g", {}, stage); movers = el("g", {}, stage);
  } else {
    stage.style.display = "none";
    section.querySelector(".cube-note").textContent =
      `The cube is drawn up to d = 5; this machine has ${N} nodes: the table shows them all.`;
  }

  // --- the node by address table (Johnsson & Ho, Tables 1 and 3) -------------
  const ctx = matrix.getContext("2d");
  let cs = 12, left = 0, top = 0;
  function layoutMatrix() {
    cs = Number(zoom.value);
    left = cs >= 10 ? 8 + 7 * Math.max(1, Math.ceil(Math.log2(K))) : 40;
    top = 18;
    matrix.width = left + N * cs + 2; matrix.height = top + K * cs + 2;
  }
  function paintMatrix(s) {
    const st = states[s], moved = changed[s];
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, matrix.width, matrix.height);
    ctx.fillStyle = "#222"; ctx.font = "10px monospace"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    // Column heads: the nodes (all where they fit, else every 2^k-th); row heads: local addresses in binary.
    const every = Math.max(1, 2 ** Math.ceil(Math.log2(Math.ceil(24 / cs))));
    for (let j = 0; j < N; j += every) ctx.fillText(`${j}`, left + j * cs + cs / 2, top / 2);
    ctx.textAlign = "right";
    const rowEvery = Math.max(1, 2 ** Math.ceil(Math.log2(Math.ceil(11 / cs))));
    for (let a = 0; a < K; a += rowEvery)
      ctx.fillText(cs >= 10 ? a.toString(2).padStart(Math.ceil(Math.log2(K)), "0") : `${a}`, left - 3, top + a * cs + cs / 2);
    ctx.textAlign = "center";
    const gap = cs >= 6 ? 1 : 0;
    ctx.font = `${Math.min(11, Math.floor(cs * 0.55))}px monospace`;
    for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a) {
      const c = j * K + a, id = st[c], x = left + j * cs, y = top + a * cs;
      ctx.fillStyle = used(j, a, s) ? colour(id) : "#f7f7f7";
      ctx.fillRect(x, y, cs - gap, cs - gap);
      if (!used(j, a, s)) continue;
      const dest = finalNode.get(id);
      if (cs >= 16 && dest !== undefined) { ctx.fillStyle = ink(id); ctx.fillText(`${dest}`, x + cs / 2, y + cs / 2); }
    }
    // The words this step moved, outlined (darkened where cells are too small for an outline).
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5; ctx.fillStyle = "rgba(0, 0, 0, 0.55)";
    for (const c of moved) {
      const j = Math.floor(c / K), a = c % K;
      if (cs >= 6) ctx.strokeRect(left + j * cs + 1, top + a * cs + 1, cs - gap - 2, cs - gap - 2);
      else ctx.fillRect(left + j * cs, top + a * cs, cs - gap, cs - gap);
    }
  }
  matrix.addEventListener("mousemove", ev => {
    const r = matrix.getBoundingClientRect();
    const j = Math.floor((ev.clientX - r.left - left) / cs), a = Math.floor((ev.clientY - r.top - top) / cs);
    if (j < 0 || j >= N || a < 0 || a >= K) { hover.style.display = "none"; return; }
    hover.textContent = `node ${j}, address ${a}: ${describe(states[shown][j * K + a])}`;
    hover.style.left = `${ev.clientX + 14}px`; hover.style.top = `${ev.clientY + 14}px`;
    hover.style.display = "block";
  });
  matrix.addEventListener("mouseleave", () => { hover.style.display = "none"; });
  // The pointer over cell (j, a), through the same handler as a real one (?hover=j,a).
  function hoverCell(j, a) {
    const r = matrix.getBoundingClientRect();
    matrix.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + left + (j + 0.5) * cs,
                                                       clientY: r.top + top + (a + 0.5) * cs, bubbles: true }));
  }

  // --- the schedule table: a row a step after the initial state ---------------
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
    return `routing cycles ${cycles} of ${total} | element-hops ${hops} of ${M.element_hops} | ` +
           (ex ? `links busy this cycle: ${dims * N / 2} of ${n * N / 2} (${Math.round(100 * dims / n)}%), ` +
                 `${ex.length} exchange(s)` : "no links busy (local step)");
  }

  // A redistribution uses a source region (words [0, S) of the P sources) and a
  // destination region (words [O, O + D) of the Q destinations); the rest is blank.
  // A grid's words beyond the input hold nothing until a cycle first writes them.
  const firstWrite = G ? Array.from({ length: N }, () => new Array(K).fill(Infinity)) : null;
  if (G) steps.forEach((t, s) => { for (const [, , j, a] of t.moves || []) firstWrite[j][a] = Math.min(firstWrite[j][a], s); });
  function used(j, a, s) {
    if (G) return a < G.input_words || firstWrite[j][a] <= s;
    const R = M.regions;
    if (!R) return true;
    if (j < R.source_nodes && a < R.source_words) return true;
    return j >= R.first_destination_node && j < R.first_destination_node + R.destination_nodes &&
           a >= R.first_destination_word && a < R.first_destination_word + R.destination_words;
  }

  let shown = 0;
  function paint(s) {
    s = Math.min(s, steps.length - 1);
    shown = s;
    const st = states[s];
    if (drawCube) {
      for (let j = 0; j < N; ++j) for (let a = 0; a < K; ++a) {
        const id = st[j * K + a], on = used(j, a, s);
        cells[j][a].setAttribute("fill", on ? colour(id) : "#f7f7f7");
        // A moved word is outlined where its cell is tall enough for an outline to leave its colour visible.
        cells[j][a].setAttribute("stroke", cellH >= 8 && changed[s].has(j * K + a) ? "#000" : "none");
        if (labels[j].length) {
          const dest = finalNode.get(id);
          labels[j][a].textContent = on && dest !== undefined ? `${dest}` : "";
          labels[j][a].setAttribute("fill", ink(id));
        }
      }
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
    }
    paintMatrix(s);
    for (const r of sched.rows) r.classList.remove("current");
    if (s > 0) sched.rows[s].classList.add("current");
    narration.textContent = `${s} / ${steps.length - 1}: ${steps[s].narration}`;
    countersEl.textContent = counters(s);
    const rows = [];
    for (let j = 0; j < N; ++j) rows.push(Array.from(st.subarray(j * K, (j + 1) * K), id => M.values[id]));
    memory.textContent = JSON.stringify(rows);
  }

  // Moves from state s-1 to s on the cube: every cell whose word changed
  // receives it from where it was (a word held once before), sliding there; a
  // copy leaves its source as it was. Returns the sliding rectangles.
  function startMoves(s) {
    const moves = [];
    if (!drawCube || s >= steps.length) return moves;
    movers.replaceChildren();
    const before = states[s - 1], after = states[s];
    const box = (j0, a0, j1, a1, id) => {
      const [x0, y0] = cellXY(j0, a0), [x1, y1] = cellXY(j1, a1);
      moves.push({ x0, y0, x1, y1, r: el("rect", { width: colW, height: cellH - 1, fill: colour(id),
                                                    stroke: "#000", "stroke-width": 0.5 }, movers) });
    };
    // A step that names its copies (a grid cycle): each word slides from where it was read.
    for (const [j0, a0, j1, a1] of steps[s].moves || []) box(j0, a0, j1, a1, after[j1 * K + a1]);
    if (!steps[s].moves) {
      const was = new Map(), count = new Map();
      before.forEach((id, c) => { was.set(id, c); count.set(id, (count.get(id) || 0) + 1); });
      for (const c of changed[s]) {
        const id = after[c];
        if (count.get(id) !== 1) continue;
        const c0 = was.get(id);
        box(Math.floor(c0 / K), c0 % K, Math.floor(c / K), c % K, id);
      }
    }
    return moves;
  }
  function clearMoves() { if (movers) movers.replaceChildren(); }
  return { paint, startMoves, clearMoves, layout: () => { layoutMatrix(); paintMatrix(shown); }, steps, init: layoutMatrix,
           hoverCell };
}

document.getElementById("title").textContent = D.title;
document.getElementById("subtitle").textContent = D.subtitle;
// The default zoom fits the largest table in about 760 pixels.
{
  const side = Math.max(...D.machines.map(M => Math.max(M.N, M.K)));
  zoom.value = Math.max(3, Math.min(40, Math.floor(800 / side / D.machines.length)));
}
if (D.machines.length > 1) document.getElementById("machines").classList.add("side-by-side");
const machines = D.machines.map(makeMachine);
machines.forEach(m => m.init());
// The legend's colours: one swatch per palette entry, numbered by the destinations it stands for.
{
  const M = D.machines[0], last = [];
  const homes = new Set();
  if (M.home) for (const [, j] of M.home) homes.add(j); else for (let j = 0; j < M.N; ++j) homes.add(j);
  const sorted = [...homes].sort((a, b) => a - b);
  const box = document.getElementById("legend-colours");
  PALETTE.slice(0, Math.min(PALETTE.length, sorted.length)).forEach((c, i) => {
    const s = document.createElement("span");
    s.className = "swatch"; s.style.background = c; s.style.color = DARK.has(i) ? "#fff" : "#000";
    s.textContent = `${sorted[i]}`;
    last.push(s);
    box.appendChild(s);
  });
  document.getElementById("legend-palette").textContent = sorted.length <= PALETTE.length
    ? "one colour a node, Okabe-Ito palette"
    : "Okabe-Ito palette: a colour stands for every 8th destination; the number in the cell, or hovering where cells are small, names it";
}

let current = 0, playing = false, timer = null, anim = null;
slider.max = lengthOfRun - 1;
function paintAll(s) {
  for (const m of machines) m.paint(s);
  const first = machines[0].steps[Math.min(s, machines[0].steps.length - 1)];
  document.getElementById("step-name").textContent = `${s} / ${lengthOfRun - 1}: ${first.label}`;
  document.body.dataset.step = s;
  slider.value = s;
}
function animate(s, done) {
  if (anim) cancelAnimationFrame(anim.frame);
  const moves = machines.flatMap(m => m.startMoves(s));
  const ms = 900 / Math.pow(2, Number(speed.value)), t0 = performance.now();
  anim = { frame: 0 };
  const frame = now => {
    const t = Math.min(1, (now - t0) / ms), e = t * t * (3 - 2 * t);
    for (const m of moves) { m.r.setAttribute("x", m.x0 + (m.x1 - m.x0) * e); m.r.setAttribute("y", m.y0 + (m.y1 - m.y0) * e); }
    if (t < 1) { anim.frame = requestAnimationFrame(frame); return; }
    for (const m of machines) m.clearMoves();
    anim = null;
    paintAll(s);
    if (done) done();
  };
  anim.frame = requestAnimationFrame(frame);
}
function go(s, animated) {
  s = Math.max(0, Math.min(lengthOfRun - 1, s));
  const forward = s === current + 1;
  current = s;
  if (animated && forward && s > 0) animate(s, playing ? schedule : null);
  else { if (anim) { cancelAnimationFrame(anim.frame); anim = null; for (const m of machines) m.clearMoves(); } paintAll(s); }
}
function schedule() {
  clearTimeout(timer);
  if (!playing) return;
  if (current >= lengthOfRun - 1) { setPlaying(false); return; }
  timer = setTimeout(() => go(current + 1, true), 250 / Math.pow(2, Number(speed.value)));
}
function setPlaying(on) {
  playing = on;
  document.getElementById("play").innerHTML = on ? "||" : "&#x25B6;";
  if (on) { if (current >= lengthOfRun - 1) go(0, false); schedule(); } else clearTimeout(timer);
}
document.getElementById("first").onclick = () => { setPlaying(false); go(0, false); };
document.getElementById("last").onclick = () => { setPlaying(false); go(lengthOfRun - 1, false); };
document.getElementById("back").onclick = () => { setPlaying(false); go(current - 1, false); };
document.getElementById("fwd").onclick = () => { setPlaying(false); go(current + 1, true); };
document.getElementById("play").onclick = () => setPlaying(!playing);
slider.oninput = () => { setPlaying(false); go(Number(slider.value), false); };
zoom.oninput = () => { for (const m of machines) m.layout(); };
function onKey(ev) {
  if (ev.key === "ArrowRight") { setPlaying(false); go(current + 1, true); }
  else if (ev.key === "ArrowLeft") { setPlaying(false); go(current - 1, false); }
  else if (ev.key === " ") { ev.preventDefault(); setPlaying(!playing); }
  else if (ev.key === "Home") { setPlaying(false); go(0, false); }
  else if (ev.key === "End") { setPlaying(false); go(lengthOfRun - 1, false); }
}
document.addEventListener("keydown", onKey);

// ?step=end or ?step=k shows that step at once; ?keys=ArrowRight,ArrowLeft,...
// then presses those keys; ?zoom=k sets the table's cell size; ?hover=j,a
// points at the first table's cell of node j, address a (the tests and
// docs/teaching.md's screenshots use them).
const params = new URLSearchParams(location.search), asked = params.get("step");
if (params.get("zoom") && /^\d+$/.test(params.get("zoom"))) { zoom.value = params.get("zoom"); for (const m of machines) m.init(); }
go(asked === "end" ? lengthOfRun - 1 : asked !== null && /^\d+$/.test(asked) ? Number(asked) : 0, false);
for (const k of (params.get("keys") || "").split(",").filter(k => k))
  document.dispatchEvent(new KeyboardEvent("keydown", { key: k === "Space" ? " " : k }));
if (/^\d+,\d+$/.test(params.get("hover") || "")) machines[0].hoverCell(...params.get("hover").split(",").map(Number));
