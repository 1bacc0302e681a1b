// The pages of pty web. Everything a session prints reaches the page as
// JSON strings and is only ever put into the document with textContent:
// it is never parsed as markup.
'use strict';

const MAX_PASTE = 128 * 1024; // web.MaxPaste

function $(id) { return document.getElementById(id); }

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The access token comes in the URL's fragment (#TOKEN), which the
// browser sends to no server. It moves out of the address bar into this
// tab's sessionStorage, which only pages of this origin (scheme, host and
// port) can read, and is presented only when a live channel opens, as a
// WebSocket subprotocol. Never a cookie: the browser would send a cookie
// to every port of this host.
const TOKEN_KEY = 'pty-web-token';
const TOKEN = (() => {
  if (location.hash.length > 1) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(location.hash.slice(1)));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) || '';
})();

// live opens a WebSocket to path and reopens it when it drops.
function live(path, onmsg, onopen) {
  const conn = $('conn');
  let delay = 500;
  let ws = null;
  let stopped = false;
  const api = {
    send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); },
    // stop closes the channel for good: what it follows is gone.
    stop(why) { stopped = true; if (ws) ws.close(); conn.textContent = why; conn.className = 'conn off'; },
  };
  if (!TOKEN) {
    conn.textContent = 'no access token: open the URL pty web printed';
    conn.className = 'conn off';
    return api;
  }
  function open() {
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path,
      ['pty-web', 'pty-web.token.' + TOKEN]);
    ws.onopen = () => { delay = 500; conn.textContent = 'live'; conn.className = 'conn on'; if (onopen) onopen(); };
    ws.onmessage = (ev) => { try { onmsg(JSON.parse(ev.data)); } catch (e) { console.error(e); } };
    ws.onclose = () => {
      if (stopped) return;
      conn.textContent = 'disconnected, retrying…'; conn.className = 'conn off';
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  open();
  return api;
}

// act posts an action (kill, restart, start) of a --write server. The
// token goes in a header of its own, which no page of another origin can
// make the browser send.
async function act(body) {
  const r = await fetch('/action', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Pty-Token': TOKEN },
    body: JSON.stringify(body),
  });
  let j = {};
  try { j = await r.json(); } catch (e) { /* not JSON: the status says it */ }
  if (!r.ok) throw new Error(j.error || 'the server answered ' + r.status);
  return j;
}

// ---- the list of sessions ----

const SECTIONS = [
  ['running', 'Running'],
  ['exited', 'Exited'],
  ['vanished', 'Vanished (no exit record: killed or crashed)'],
];

function listPage() {
  const main = $('sessions');
  newSessionForm();
  live('/live/list', (m) => {
    if (m.t !== 'list') return;
    $('new').hidden = !m.write;
    newSessionHosts(m.write ? m.remote || [] : []);
    const out = [];
    if (m.error) out.push(el('p', 'error', m.error));
    if (m.sessions.length === 0 && !m.remote) out.push(el('p', 'empty', 'No sessions.'));
    for (const [status, title] of SECTIONS) {
      const ss = m.sessions.filter((s) => s.status === status);
      if (ss.length === 0) continue;
      const sec = el('section', 'group ' + status);
      sec.append(el('h2', '', title + ' (' + ss.length + ')'));
      const ul = el('ul', 'sessions');
      for (const s of ss) {
        const li = el('li', 'session');
        li.dataset.id = s.id;
        const a = el('a', 'id', s.id);
        a.href = '/s/' + encodeURIComponent(s.id);
        li.append(a);
        if (s.name) li.append(el('span', 'name', s.name));
        if (s.exit) li.append(el('span', 'exit' + (s.failed ? ' bad' : s.exit === 'exit 0' ? ' ok' : ''), s.exit));
        li.append(el('span', 'when', s.when));
        li.append(el('span', 'cwd', s.cwd));
        li.append(el('span', 'command', s.command));
        if (s.tags) li.append(el('span', 'tags', s.tags));
        if (s.marker) li.append(el('span', 'marker', s.marker));
        for (const a of s.activity || []) li.append(el('span', 'activity ' + a, '[' + a + ']'));
        if (s.preview && s.preview.length) {
          const pre = el('pre', 'preview');
          for (const l of s.preview) { const d = el('div', 'row'); fillRow(d, [[l, -1, -1, 0]]); pre.append(d); }
          li.append(pre);
        }
        ul.append(li);
      }
      sec.append(ul);
      out.push(sec);
    }
    for (const g of m.remote || []) out.push(remoteGroup(g));
    main.replaceChildren(...out);
  });
}

// remoteGroup is one other host's sessions (pty web --remotes), each
// linked to its page at /h/HOST/ID.
function remoteGroup(g) {
  const sec = el('section', 'group host');
  sec.dataset.host = g.label;
  let head = g.label + ' (' + g.sessions.length + ')';
  if (g.asking) head = g.label + ' (asking…)';
  if (g.error) head = g.label + ' (error)';
  sec.append(el('h2', '', head));
  if (g.error) sec.append(el('p', 'error', g.error));
  const ul = el('ul', 'sessions');
  for (const s of g.sessions) {
    const li = el('li', 'session ' + s.status);
    li.dataset.id = s.id;
    const a = el('a', 'id', s.id);
    a.href = '/h/' + encodeURIComponent(g.label) + '/' + encodeURIComponent(s.id);
    li.append(a);
    if (s.name) li.append(el('span', 'name', s.name));
    if (s.exit) li.append(el('span', 'exit' + (s.exit === 'exit 0' ? ' ok' : ''), s.exit));
    li.append(el('span', 'when', s.when || s.status));
    li.append(el('span', 'cwd', s.cwd));
    li.append(el('span', 'command', s.command));
    for (const a of s.activity || []) li.append(el('span', 'activity ' + a, '[' + a + ']'));
    ul.append(li);
  }
  sec.append(ul);
  return sec;
}

// newSessionForm is the list's form for pty run -d.
function newSessionForm() {
  const form = $('newform');
  $('new').addEventListener('click', () => { form.hidden = false; $('newcmd').focus(); });
  $('newcancel').addEventListener('click', () => { form.hidden = true; });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    $('newerror').hidden = true;
    $('newstart').disabled = true;
    try {
      const host = $('newhost').value;
      const req = { op: 'start', command: $('newcmd').value, name: $('newname').value.trim(), cwd: $('newcwd').value.trim() };
      if (host) req.host = host;
      const r = await act(req);
      location.href = host ? '/h/' + encodeURIComponent(host) + '/' + encodeURIComponent(r.id) : '/s/' + encodeURIComponent(r.id);
    } catch (err) {
      $('newerror').textContent = err.message;
      $('newerror').hidden = false;
    } finally {
      $('newstart').disabled = false;
    }
  });
}

// newSessionHosts offers the hosts of pty web --remotes in the form,
// keeping the one chosen.
function newSessionHosts(groups) {
  const sel = $('newhost');
  const want = groups.map((g) => g.label);
  const have = Array.from(sel.options).slice(1).map((o) => o.value);
  $('newhostl').hidden = want.length === 0;
  if (want.join('\n') === have.join('\n')) return;
  const chosen = sel.value;
  sel.replaceChildren(el('option', '', 'this machine'), ...want.map((l) => { const o = el('option', '', l); o.value = l; return o; }));
  sel.options[0].value = '';
  sel.value = want.includes(chosen) ? chosen : '';
}

// ---- a session ----

const PALETTE = (() => {
  const p = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
    '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];
  const lv = [0, 95, 135, 175, 215, 255];
  const hex = (r, g, b) => '#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('');
  for (let i = 0; i < 216; i++) p.push(hex(lv[Math.floor(i / 36)], lv[Math.floor(i / 6) % 6], lv[i % 6]));
  for (let i = 0; i < 24; i++) { const v = 8 + 10 * i; p.push(hex(v, v, v)); }
  return p;
})();

function color(c) {
  if (c < 0) return '';
  if (c < 256) return PALETTE[c];
  return '#' + (c & 0xffffff).toString(16).padStart(6, '0');
}

const A_BOLD = 1, A_DIM = 2, A_ITALIC = 4, A_BLINK = 8, A_REVERSE = 16, A_HIDDEN = 32,
  A_STRIKE = 64, A_OVERLINE = 128, A_WIDE = 256, A_CURSOR = 1 << 16;
const UNDERLINES = ['', 'solid', 'double', 'wavy', 'dotted', 'dashed'];

function span(run) {
  const [text, fgc, bgc, attr] = run;
  const s = document.createElement('span');
  s.textContent = text;
  let fg = color(fgc), bg = color(bgc);
  if (attr & A_REVERSE) {
    [fg, bg] = [bg || 'var(--bg)', fg || 'var(--fg)'];
  }
  if (attr & A_CURSOR) {
    [fg, bg] = [bg || 'var(--bg)', fg || 'var(--fg)'];
  }
  if (attr & A_HIDDEN) fg = 'transparent';
  if (fg) s.style.color = fg;
  if (bg) s.style.backgroundColor = bg;
  if (attr & A_BOLD) s.style.fontWeight = 'bold';
  if (attr & A_DIM) s.style.opacity = '0.6';
  if (attr & A_ITALIC) s.style.fontStyle = 'italic';
  const lines = [];
  const ul = (attr >> 12) & 7;
  if (ul) { lines.push('underline'); s.style.textDecorationStyle = UNDERLINES[ul] || 'solid'; }
  if (attr & A_STRIKE) lines.push('line-through');
  if (attr & A_OVERLINE) lines.push('overline');
  if (lines.length) s.style.textDecorationLine = lines.join(' ');
  let cls = '';
  if (attr & A_WIDE) cls += ' w';
  if (attr & A_BLINK) cls += ' blink';
  if (attr & A_CURSOR) cls += ' cur';
  if (cls) s.className = cls.trim();
  return s;
}

// Links: URLs in the text (http, https and mailto only, never
// javascript: or data:), opened in a new tab without a handle on this
// one.
const URL_RE = /\b(?:https?:\/\/|mailto:)[^\s"'<>`\\]+/gi;

function safeHref(u) {
  try {
    const x = new URL(u);
    if (x.protocol === 'http:' || x.protocol === 'https:' || x.protocol === 'mailto:') return x.href;
  } catch (e) { /* not a URL */ }
  return null;
}

// trimURL drops the punctuation that ends a sentence around a URL, and a
// closing bracket that has no opening one in it.
function trimURL(u) {
  for (;;) {
    const last = u[u.length - 1];
    if ('.,;:!?\'"'.includes(last)) { u = u.slice(0, -1); continue; }
    const open = { ')': '(', ']': '[', '}': '{' }[last];
    if (open && u.split(open).length <= u.split(last).length - 1) { u = u.slice(0, -1); continue; }
    return u;
  }
}

function linkTo(href) {
  const a = document.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  return a;
}

function links(text) {
  const out = [];
  if (!/https?:\/\/|mailto:/i.test(text)) return out;
  for (const m of text.matchAll(URL_RE)) {
    const u = trimURL(m[0]);
    const href = safeHref(u);
    if (href) out.push([m.index, m.index + u.length, href]);
  }
  return out;
}

// rowLinks is a row's links: its OSC 8 hyperlinks (a run's fifth
// element, checked like any URL) and the URLs in its text outside them.
function rowLinks(runs) {
  const osc = [];
  let pos = 0;
  for (const r of runs) {
    const end = pos + r[0].length;
    const href = r[4] ? safeHref(r[4]) : null;
    const last = osc[osc.length - 1];
    if (href && last && last[1] === pos && last[2] === href) last[1] = end;
    else if (href) osc.push([pos, end, href]);
    pos = end;
  }
  const found = links(runs.map((r) => r[0]).join(''));
  if (osc.length === 0) return found;
  const outside = found.filter((t) => !osc.some((o) => t[0] < o[1] && o[0] < t[1]));
  return osc.concat(outside).sort((x, y) => x[0] - y[0]);
}

function fillRow(div, runs) {
  const ls = rowLinks(runs);
  if (ls.length === 0) { div.replaceChildren(...runs.map(span)); return; }
  // The runs are cut where links start and end; a link's pieces go in
  // one anchor.
  const out = [];
  let pos = 0, li = 0, a = null;
  for (const run of runs) {
    const text = run[0], start = pos;
    pos += text.length;
    for (let off = 0; off < text.length;) {
      const at = start + off;
      while (li < ls.length && ls[li][1] <= at) li++;
      const l = ls[li];
      let end;
      if (l && at >= l[0]) {
        end = Math.min(text.length, l[1] - start);
        if (!a || a.linkIndex !== li) { a = linkTo(l[2]); a.linkIndex = li; out.push(a); }
        a.append(span([text.slice(off, end), run[1], run[2], run[3]]));
      } else {
        end = l ? Math.min(text.length, l[0] - start) : text.length;
        a = null;
        out.push(span([text.slice(off, end), run[1], run[2], run[3]]));
      }
      off = end;
    }
  }
  div.replaceChildren(...out);
}

function sessionPage() {
  // /s/ID, or /h/HOST/ID for a session on another host.
  const parts = location.pathname.split('/');
  const host = parts[1] === 'h' ? decodeURIComponent(parts[2] || '') : '';
  const id = decodeURIComponent((host ? parts[3] : parts[2]) || '');
  const livePath = host ? '/live/h/' + encodeURIComponent(host) + '/' + encodeURIComponent(id) : '/live/s/' + encodeURIComponent(id);
  const term = $('term'), screen = $('screen'), hist = $('hist'), input = $('input');
  let name = id, title = '', writable = false, cols = 80, keep = 10001;

  function setTitle() {
    document.title = name + (title ? ' — ' + title : '') + ' — pty';
    $('name').textContent = name;
    $('title').textContent = title;
  }
  setTitle();

  function atBottom() { return term.scrollHeight - term.scrollTop - term.clientHeight < 4; }
  // The button back to the live screen shows while the view is up in the
  // scrollback.
  function showToLive() { $('tolive').hidden = atBottom(); }
  term.addEventListener('scroll', showToLive, { passive: true });
  $('tolive').addEventListener('click', () => { term.scrollTop = term.scrollHeight; showToLive(); });

  // The font is scaled so the session's columns fit the width (a phone
  // shows a whole 80-column screen); pinch to zoom still enlarges it.
  const probe = el('span', '', 'M'.repeat(100));
  term.append(el('div', 'row probe'));
  term.lastElementChild.append(probe);
  const MAX_FONT = 14, MIN_FONT = 5;
  function fit() {
    const cs = getComputedStyle(term);
    const avail = term.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const perPx = probe.getBoundingClientRect().width / 100 / parseFloat(getComputedStyle(probe).fontSize);
    if (!(perPx > 0) || !(avail > 0)) return;
    const size = Math.max(MIN_FONT, Math.min(MAX_FONT, Math.floor(avail / (cols * perPx) * 10) / 10));
    term.style.fontSize = size + 'px';
  }
  window.addEventListener('resize', fit);

  // The scrollback is a terminal's: every line that scrolls off the
  // screen comes with the update that scrolls it, and the oldest go past
  // keep lines.
  function addHistory(m) {
    if (m.histReset) hist.replaceChildren();
    if (!m.hist) return;
    const frag = document.createDocumentFragment();
    for (const runs of m.hist) { const d = el('div', 'row'); fillRow(d, runs); frag.append(d); }
    hist.append(frag);
    const drop = hist.childElementCount - keep;
    if (drop <= 0) return;
    // The view stays on the lines it shows when older ones go.
    const h = hist.firstElementChild.offsetHeight;
    for (let i = 0; i < drop; i++) hist.firstElementChild.remove();
    term.scrollTop -= h * drop;
  }

  function ended(m) {
    $('status').textContent = 'ended';
    const how = m.how || (m.code === null || m.code === undefined ? 'exit code unknown' : 'exit ' + m.code);
    $('exit').textContent = 'The session has ended: ' + how + '.';
    $('last').textContent = m.lines.join('\n');
    $('last').hidden = m.lines.length === 0;
    $('ended').hidden = false;
    $('mode').textContent = 'ended';
    $('mode').className = 'mode ended';
    writable = false;
    term.classList.remove('writable');
    $('keys').hidden = true;
    input.blur();
    input.remove(); // nothing to type into
    if (screen.childElementCount === 0) $('termwrap').hidden = true; // no screen was seen
  }

  const conn = live(livePath, (m) => {
    switch (m.t) {
      case 'hello':
        name = m.name; writable = m.write;
        if (m.scrollback > 0) keep = m.scrollback;
        hist.replaceChildren();
        $('status').textContent = m.status;
        $('mode').textContent = m.status !== 'running' ? '' : writable ? 'typing enabled' : 'read-only';
        $('mode').className = 'mode ' + (writable ? 'rw' : 'ro');
        term.classList.toggle('writable', writable);
        $('keys').hidden = !writable;
        $('acts').hidden = !m.actions;
        setTitle();
        break;
      case 'screen': {
        const follow = atBottom();
        if (m.cols !== cols || !term.style.fontSize) { cols = m.cols; fit(); }
        screen.style.width = m.cols + 'ch';
        if (m.full || screen.childElementCount !== m.rows) {
          const rows = [];
          for (let y = 0; y < m.rows; y++) rows.push(el('div', 'row'));
          screen.replaceChildren(...rows);
        }
        for (const [y, runs] of m.lines) {
          const div = screen.children[y];
          if (div) fillRow(div, runs);
        }
        addHistory(m);
        term.classList.toggle('alt', !!m.alt);
        if (m.title !== title) { title = m.title; setTitle(); }
        if (follow) term.scrollTop = term.scrollHeight;
        showToLive();
        finder.changed();
        // The next update comes once this one is applied: a page that
        // falls behind gets fewer updates, never a backlog.
        conn.send({ t: 'ack' });
        break;
      }
      case 'events': {
        const ol = $('events');
        ol.replaceChildren(...m.lines.slice().reverse().map((l) => el('li', '', l)));
        break;
      }
      case 'ended':
        ended(m);
        break;
      case 'link': {
        // The route to the session's host (pty web --remotes): down
        // while it is made again.
        const c = $('conn');
        c.textContent = m.down || 'live';
        c.className = 'conn ' + (m.down ? 'off' : 'on');
        break;
      }
      case 'gone':
        conn.stop('gone');
        $('status').textContent = 'removed';
        $('error').textContent = m.msg;
        $('error').hidden = false;
        break;
      case 'error':
        $('error').textContent = m.msg;
        $('error').hidden = false;
        break;
    }
  });

  const finder = findBar(term);
  actionButtons(id, host, () => name);

  // Keys: a hidden textarea holds the focus, so phones show their keyboard
  // and input methods work. Keys without a character (arrows, Enter,
  // ctrl+...) are sent as keys; characters arrive as text.
  term.addEventListener('click', (e) => {
    if (writable && !e.target.closest('a') && !window.getSelection().toString()) input.focus({ preventScroll: true });
  });
  input.addEventListener('keydown', (e) => {
    if (!writable || e.isComposing || e.metaKey) return;
    const k = e.key;
    if (e.ctrlKey && e.shiftKey && (k === 'C' || k === 'V')) return; // the browser's copy and paste
    const printable = [...k].length === 1;
    if (printable && !e.ctrlKey && !e.altKey) return; // comes as text
    if (!printable && !(k in NAMED)) return;
    e.preventDefault();
    const mods = (e.shiftKey ? 1 : 0) | (e.altKey ? 2 : 0) | (e.ctrlKey ? 4 : 0);
    conn.send({ t: 'key', key: k, mods });
  });
  // Keys a phone's keyboard lacks.
  for (const b of $('keys').querySelectorAll('button')) {
    b.addEventListener('click', () => {
      if (writable) conn.send({ t: 'key', key: b.dataset.key, mods: Number(b.dataset.mods || 0) });
      input.focus({ preventScroll: true });
    });
  }
  input.addEventListener('input', (e) => {
    if (e.isComposing) return;
    flushText();
  });
  input.addEventListener('compositionend', flushText);
  function flushText() {
    const v = input.value;
    input.value = '';
    if (writable && v) conn.send({ t: 'text', data: v });
  }
  input.addEventListener('paste', (e) => {
    e.preventDefault();
    if (!writable) return;
    const text = e.clipboardData.getData('text/plain');
    if (new TextEncoder().encode(text).length > MAX_PASTE) {
      $('error').textContent = 'Paste refused: more than ' + MAX_PASTE / 1024 + ' KiB.';
      $('error').hidden = false;
      return;
    }
    if (text) conn.send({ t: 'paste', data: text });
  });
}

// findBar is the page's own search of the scrollback and the screen. The
// matches are highlighted with the CSS Custom Highlight API: ranges over
// the rows' text, so the rows themselves are never rewritten.
const MAX_MATCHES = 10000;

function findBar(term) {
  const box = $('find'), count = $('findcount');
  let matches = [], cur = -1, timer = 0;

  function clear() {
    if (window.CSS && CSS.highlights) { CSS.highlights.delete('pty-find'); CSS.highlights.delete('pty-find-current'); }
  }

  // search finds the query in every row, case-insensitively. With keep,
  // the current match stays the one it was (by number) and the view does
  // not move: the session printed, the user did not search.
  function search(keep) {
    const q = box.value.toLowerCase();
    const was = cur;
    matches = [];
    clear();
    if (q) {
      for (const row of term.querySelectorAll('#hist .row, #screen .row')) {
        const text = row.textContent;
        const lower = text.toLowerCase();
        const hay = lower.length === text.length ? lower : text;
        let i = hay.indexOf(q);
        if (i < 0) continue;
        const nodes = [];
        const w = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(), at = 0; n; n = w.nextNode()) { nodes.push([n, at]); at += n.length; }
        const point = (off) => {
          let k = nodes.length - 1;
          while (k > 0 && nodes[k][1] > off) k--;
          return [nodes[k][0], off - nodes[k][1]];
        };
        for (; i >= 0 && matches.length < MAX_MATCHES; i = hay.indexOf(q, i + q.length)) {
          const r = new Range();
          r.setStart(...point(i));
          r.setEnd(...point(i + q.length));
          matches.push(r);
        }
      }
    }
    if (window.CSS && CSS.highlights && matches.length) CSS.highlights.set('pty-find', new Highlight(...matches));
    if (keep && was >= 0) cur = Math.min(was, matches.length - 1);
    else cur = matches.length - 1; // the newest first, as a terminal's search goes up
    show(!keep);
  }

  function show(scroll) {
    if (!box.value) { count.textContent = ''; return; }
    count.textContent = matches.length === 0 ? 'no match' : (cur + 1) + ' of ' + matches.length + (matches.length === MAX_MATCHES ? '+' : '');
    if (cur < 0) return;
    const r = matches[cur];
    if (window.CSS && CSS.highlights) CSS.highlights.set('pty-find-current', new Highlight(r));
    if (!scroll) return;
    const rr = r.getBoundingClientRect(), tr = term.getBoundingClientRect();
    if (rr.top < tr.top || rr.bottom > tr.bottom) term.scrollTop += rr.top - tr.top - term.clientHeight / 2;
  }

  function step(d) {
    if (box.value && matches.length === 0) search(false);
    if (matches.length === 0) return;
    cur = (cur + d + matches.length) % matches.length;
    show(true);
  }

  box.addEventListener('input', () => search(false));
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); step(e.shiftKey ? 1 : -1); }
    if (e.key === 'Escape') { box.value = ''; search(false); }
  });
  $('findprev').addEventListener('click', () => step(-1));
  $('findnext').addEventListener('click', () => step(1));
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'f' && document.activeElement !== box) { e.preventDefault(); box.focus(); box.select(); }
  });
  return {
    // changed is called when rows change: the matches are found again,
    // at most every 250 ms.
    changed() {
      if (!box.value || timer) return;
      timer = setTimeout(() => { timer = 0; search(true); }, 250);
    },
  };
}

// actionButtons are the session's kill and restart buttons (--write),
// each asking first; host is the session's host of --remotes, '' for
// this one.
function actionButtons(id, host, name) {
  const target = host ? { id, host } : { id };
  const bar = $('confirm');
  let pending = null;
  function ask(what, text, run) {
    $('confirmtext').textContent = text;
    $('confirmyes').textContent = what;
    pending = run;
    bar.hidden = false;
    $('confirmno').focus();
  }
  function notice(text, bad) {
    $('notice').textContent = text;
    $('notice').className = 'notice' + (bad ? ' bad' : '');
    $('notice').hidden = false;
  }
  $('confirmno').addEventListener('click', () => { bar.hidden = true; pending = null; });
  $('confirmyes').addEventListener('click', async () => {
    const run = pending;
    bar.hidden = true;
    pending = null;
    if (!run) return;
    try { await run(); } catch (err) { notice(err.message, true); }
  });
  $('kill').addEventListener('click', () => ask('Kill', 'Kill session ' + name() + '? Its programs get SIGHUP, then SIGTERM and SIGKILL.', async () => {
    notice('Killing…');
    const r = await act({ op: 'kill', ...target });
    notice(r.msg);
  }));
  $('restart').addEventListener('click', () => ask('Restart', 'Restart session ' + name() + '? If it runs it is killed first.', async () => {
    notice('Restarting…');
    await act({ op: 'restart', ...target });
    location.reload();
  }));
}

const NAMED = {
  Enter: 1, Tab: 1, Escape: 1, Backspace: 1, Delete: 1, Insert: 1, ArrowUp: 1, ArrowDown: 1,
  ArrowLeft: 1, ArrowRight: 1, Home: 1, End: 1, PageUp: 1, PageDown: 1,
  F1: 1, F2: 1, F3: 1, F4: 1, F5: 1, F6: 1, F7: 1, F8: 1, F9: 1, F10: 1, F11: 1, F12: 1,
};

if (document.body.dataset.page === 'list') listPage();
else if (document.body.dataset.page === 'session') sessionPage();
