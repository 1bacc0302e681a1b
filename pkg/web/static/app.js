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
  const api = { send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); } };
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
      conn.textContent = 'disconnected, retrying…'; conn.className = 'conn off';
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  open();
  return api;
}

// ---- the list of sessions ----

const SECTIONS = [
  ['running', 'Running'],
  ['exited', 'Exited'],
  ['vanished', 'Vanished (no exit record: killed or crashed)'],
];

function listPage() {
  const main = $('sessions');
  live('/live/list', (m) => {
    if (m.t !== 'list') return;
    const out = [];
    if (m.error) out.push(el('p', 'error', m.error));
    if (m.sessions.length === 0) out.push(el('p', 'empty', 'No sessions.'));
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
        li.append(el('span', 'when', s.when));
        li.append(el('span', 'cwd', s.cwd));
        li.append(el('span', 'command', s.command));
        if (s.tags) li.append(el('span', 'tags', s.tags));
        if (s.marker) li.append(el('span', 'marker', s.marker));
        for (const a of s.activity || []) li.append(el('span', 'activity ' + a, '[' + a + ']'));
        ul.append(li);
      }
      sec.append(ul);
      out.push(sec);
    }
    main.replaceChildren(...out);
  });
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

function fillRow(div, runs) {
  div.replaceChildren(...runs.map(span));
}

function sessionPage() {
  const id = decodeURIComponent(location.pathname.split('/')[2] || '');
  const term = $('term'), screen = $('screen'), hist = $('hist'), input = $('input');
  let name = id, title = '', writable = false, cols = 80, keep = 10001;

  function setTitle() {
    document.title = name + (title ? ' — ' + title : '') + ' — pty';
    $('name').textContent = name;
    $('title').textContent = title;
  }
  setTitle();

  function atBottom() { return term.scrollHeight - term.scrollTop - term.clientHeight < 4; }

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

  const conn = live('/live/s/' + encodeURIComponent(id), (m) => {
    switch (m.t) {
      case 'hello':
        name = m.name; writable = m.write;
        if (m.scrollback > 0) keep = m.scrollback;
        hist.replaceChildren();
        $('status').textContent = m.status;
        $('mode').textContent = writable ? 'typing enabled' : 'read-only';
        $('mode').className = 'mode ' + (writable ? 'rw' : 'ro');
        term.classList.toggle('writable', writable);
        $('keys').hidden = !writable;
        setTitle();
        break;
      case 'screen': {
        const follow = atBottom();
        cols = m.cols;
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
        $('status').textContent = 'exited';
        $('exit').textContent = m.code === null || m.code === undefined ? 'The session has ended (exit code unknown).' : 'The session has ended with exit code ' + m.code + '.';
        $('last').textContent = m.lines.join('\n');
        $('ended').hidden = false;
        writable = false;
        term.classList.remove('writable');
        $('keys').hidden = true;
        break;
      case 'error':
        $('error').textContent = m.msg;
        $('error').hidden = false;
        break;
    }
  });

  // Keys: a hidden textarea holds the focus, so phones show their keyboard
  // and input methods work. Keys without a character (arrows, Enter,
  // ctrl+...) are sent as keys; characters arrive as text.
  term.addEventListener('click', () => { if (writable && !window.getSelection().toString()) input.focus({ preventScroll: true }); });
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

const NAMED = {
  Enter: 1, Tab: 1, Escape: 1, Backspace: 1, Delete: 1, Insert: 1, ArrowUp: 1, ArrowDown: 1,
  ArrowLeft: 1, ArrowRight: 1, Home: 1, End: 1, PageUp: 1, PageDown: 1,
  F1: 1, F2: 1, F3: 1, F4: 1, F5: 1, F6: 1, F7: 1, F8: 1, F9: 1, F10: 1, F11: 1, F12: 1,
};

if (document.body.dataset.page === 'list') listPage();
else if (document.body.dataset.page === 'session') sessionPage();
