// The Efferent web console: one conversation per browser (kept in localStorage), live tasks and workers.
// The API token is kept only for this tab (sessionStorage) and sent in the socket's first frame, never in a URL.
(() => {
  const $ = (id) => document.getElementById(id);
  const store = window.localStorage;
  const tabStore = window.sessionStorage;
  store.removeItem('efferent.token'); // kept there by earlier versions
  let token = tabStore.getItem('efferent.token') || '';
  // A link may carry the token in its fragment (/#token=…), which browsers never send to a server.
  const fromLink = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromLink) {
    token = fromLink;
    tabStore.setItem('efferent.token', token);
    history.replaceState(null, '', location.pathname + location.search);
  }
  let conversation = store.getItem('efferent.conversation');
  if (!conversation) {
    conversation = (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2));
    store.setItem('efferent.conversation', conversation);
  }
  let socket = null;
  let retry = 500;
  const progressBubbles = new Map();

  function setConn(state, text) {
    $('conn').dataset.state = state;
    $('conn-text').textContent = text;
  }

  function headers() {
    return token ? { Authorization: 'Bearer ' + token } : {};
  }

  async function start() {
    const probe = await fetch('/api/v1/workers', { headers: headers() }).catch(() => null);
    if (probe && probe.status === 401) {
      $('login').hidden = false;
      $('login-error').hidden = !token;
      $('token').focus();
      setConn('closed', 'Needs the API token');
      return;
    }
    $('login').hidden = true;
    connect();
  }

  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const url = `${scheme}://${location.host}/ws/console?conversation=${encodeURIComponent(conversation)}`;
    socket = new WebSocket(url);
    socket.onopen = () => {
      if (token) socket.send(JSON.stringify({ type: 'auth', token }));
      retry = 500;
      setConn('open', 'Connected');
    };
    socket.onclose = () => {
      setConn('connecting', 'Reconnecting…');
      setTimeout(start, retry);
      retry = Math.min(retry * 2, 10000);
    };
    socket.onmessage = (event) => {
      const m = JSON.parse(event.data);
      if (m.type === 'state') renderState(m);
      else if (m.type === 'history') renderHistory(m.messages);
      else if (m.type === 'message') renderMessage(m);
    };
  }

  function say(text) {
    text = text.trim();
    if (!text || !socket || socket.readyState !== WebSocket.OPEN) return;
    addBubble('me', text);
    socket.send(JSON.stringify({ type: 'say', text }));
  }

  // Icons drawn here, not taken from the system's emoji font, which many machines lack.
  const ICONS = new Map(Object.entries({
    '✅': '<svg viewBox="0 0 16 16" class="icon ok" aria-label="done"><circle cx="8" cy="8" r="8"/><path d="M4.5 8.3l2.3 2.3 4.7-4.9" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/></svg>',
    '❌': '<svg viewBox="0 0 16 16" class="icon bad" aria-label="failed"><circle cx="8" cy="8" r="8"/><path d="M5.2 5.2l5.6 5.6M10.8 5.2l-5.6 5.6" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
    '⏰': '<svg viewBox="0 0 16 16" class="icon time" aria-label="reminder"><circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M8 4.5V8l2.5 1.5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round"/></svg>',
  }));
  const FOLD_LINES = 20;

  // The text, its icons drawn, as the bubble's content; a long one shows its first lines and a "show all" button.
  function setText(div, text) {
    div.replaceChildren();
    const lines = text.replace(/\n+$/, '').split('\n');
    const folded = lines.length > FOLD_LINES + 5;
    appendWithIcons(div, folded ? lines.slice(0, FOLD_LINES).join('\n') + '\n…' : text);
    if (folded) {
      const more = el('button', 'show-all', `Show all ${lines.length} lines`);
      more.type = 'button';
      more.addEventListener('click', (e) => {
        e.stopPropagation();
        div.replaceChildren();
        appendWithIcons(div, text);
      });
      div.append(more);
    }
  }

  function appendWithIcons(div, text) {
    for (const part of text.split(/(✅|❌|⏰)/u)) {
      if (ICONS.has(part)) {
        const span = el('span', 'icon-wrap');
        span.innerHTML = ICONS.get(part);
        div.append(span);
      } else if (part) {
        div.append(document.createTextNode(part));
      }
    }
  }

  function addBubble(cls, text) {
    $('chat-empty')?.remove();
    const div = document.createElement('div');
    div.className = 'msg ' + cls;
    setText(div, text);
    $('messages').appendChild(div);
    $('messages').scrollTop = $('messages').scrollHeight;
    return div;
  }

  // A result names its task: a click shows that task in the task list.
  function linkTask(bubble, taskId) {
    if (!taskId) return bubble;
    bubble.dataset.taskId = taskId;
    bubble.title = 'task ' + taskId;
    bubble.addEventListener('click', () => {
      const li = document.querySelector(`#tasks li[data-task-id="${CSS.escape(taskId)}"]`);
      if (li) {
        li.scrollIntoView({block: 'nearest'});
        li.classList.add('flash');
        setTimeout(() => li.classList.remove('flash'), 1200);
      }
    });
    return bubble;
  }

  // What this conversation said before (a reload, a reconnect): shown again, in place of what the page had.
  function renderHistory(messages) {
    if (!messages.length) return;
    $('messages').replaceChildren();
    progressBubbles.clear();
    for (const m of messages) {
      if (m.from === 'person') addBubble('me', m.text);
      else if (m.kind === 'result') linkTask(addBubble('bot result ' + (m.ok ? 'ok' : 'bad'), m.text), m.taskId);
      else addBubble('bot', m.text);
    }
  }

  // A streamed reply grows in one bubble from the parts that arrive; its last message has the whole text.
  const streamBubbles = new Map();

  function renderMessage(m) {
    if (m.kind === 'streamed') {
      let bubble = streamBubbles.get(m.replyId);
      if (!bubble) {
        bubble = addBubble('bot', '');
        streamBubbles.set(m.replyId, bubble);
      }
      if (m.done) {
        setText(bubble, m.text);
        streamBubbles.delete(m.replyId);
      } else {
        bubble.textContent += m.text;
      }
      return;
    }
    if (m.kind === 'prompt-closed') {
      // Answered, here or elsewhere: the question's buttons go quiet.
      document.querySelectorAll(`.msg.prompt[data-prompt-id="${CSS.escape(m.promptId)}"] button.choice`)
        .forEach((b) => { b.disabled = true; });
      return;
    }
    if (m.kind === 'prompt' && m.promptId.startsWith('human-')) {
      // The assistant waits for the person: a banner above the chat until they answer.
      const banner = $('banner');
      banner.replaceChildren(el('span', 'grow', m.question));
      for (const c of m.choices) {
        const b = el('button', 'choice', c.label);
        b.type = 'button';
        b.addEventListener('click', () => {
          say(c.command);
          banner.hidden = true;
        });
        banner.append(b);
      }
      banner.hidden = false;
      addBubble('bot prompt', m.question);
      return;
    }
    if (m.kind === 'prompt') {
      const bubble = addBubble('bot prompt', m.question);
      bubble.dataset.promptId = m.promptId;
      for (const c of m.choices) {
        const b = el('button', 'choice', c.label);
        b.type = 'button';
        b.dataset.command = c.command;
        b.addEventListener('click', () => {
          say(c.command);
          // A question is answered once: its buttons go quiet.
          bubble.querySelectorAll('button.choice').forEach((x) => { x.disabled = true; });
        });
        bubble.appendChild(b);
      }
      return;
    }
    if (m.kind === 'progress') {
      let bubble = progressBubbles.get(m.taskId);
      if (!bubble) {
        bubble = addBubble('bot progress', '');
        bubble.innerHTML = '<span class="t"></span><div class="bar"><span></span></div>';
        progressBubbles.set(m.taskId, bubble);
      }
      bubble.querySelector('.t').textContent = m.text;
      // A command reports lines, not a share of the work: the bar then only says that it is busy.
      bubble.querySelector('.bar').classList.toggle('busy', !m.percent);
      bubble.querySelector('.bar > span').style.width = (m.percent || 0) + '%';
      return;
    }
    if (m.kind === 'result') {
      progressBubbles.get(m.taskId)?.remove();
      progressBubbles.delete(m.taskId);
      linkTask(addBubble('bot result ' + (m.ok ? 'ok' : 'bad'), m.text), m.taskId);
      return;
    }
    if (m.kind === 'image') {
      const bubble = addBubble('bot', m.text);
      const img = document.createElement('img');
      img.src = `data:${m.mimeType};base64,${m.data}`;
      img.alt = m.text;
      bubble.appendChild(img);
      return;
    }
    addBubble('bot', m.text);
  }

  function ago(iso) {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  let lastState = null;

  function renderState(state) {
    lastState = state;
    $('mode').textContent = state.hands ? 'Brain and hands: tools run on your workers'
      : 'Single-machine mode: tools run in the brain';
    const tasks = $('tasks');
    tasks.replaceChildren();
    for (const t of state.tasks) {
      const li = el('li');
      li.dataset.taskId = t.id;
      li.tabIndex = 0;
      li.setAttribute('role', 'button');
      li.title = 'Open this task';
      li.addEventListener('click', () => openTask(t.id));
      li.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); openTask(t.id); } });
      li.dataset.status = t.status;
      const top = el('div', 'row');
      top.append(el('span', 'name', t.tool), el('span', 'sub grow', t.id), el('span', 'badge ' + t.status, t.status));
      const where = t.runningOn ? 'on ' + t.runningOn : (t.worker ? 'for ' + t.worker : '');
      const sub = el('div', 'sub', [where, ago(t.createdAt) + ' ago', t.error ? t.error : ''].filter(Boolean).join(' · '));
      li.append(top, sub);
      if (t.approval) li.append(el('div', 'sub approval', t.approval));
      if (t.status === 'running' || t.status === 'claimed') {
        const bar = el('div', 'bar' + (t.progress ? '' : ' busy'));
        const fill = el('span');
        fill.style.width = (t.progress || 0) + '%';
        bar.append(fill);
        li.append(bar);
        // Without a share of the work known (a command's output), its latest line says how it goes.
        const what = [t.progress ? t.progress + '%' : '', t.progressMessage || ''].filter(Boolean).join(' · ');
        if (what) li.append(el('div', 'sub progress-line', what));
      }
      tasks.append(li);
    }
    $('tasks-empty').hidden = state.tasks.length > 0;
    const active = state.tasks.filter((t) => !['completed', 'failed', 'cancelled'].includes(t.status)).length;
    $('task-count').textContent = active ? active + ' active' : '';

    const workers = $('workers');
    workers.replaceChildren();
    for (const w of state.workers) {
      const li = el('li');
      li.dataset.worker = w.name;
      li.dataset.online = String(w.online);
      const top = el('div', 'row');
      top.append(el('span', 'online-dot' + (w.online ? ' on' : '')), el('span', 'name grow', w.name),
        el('span', 'badge ' + (w.online ? 'completed' : ''), w.local ? 'this server' : w.online ? 'online' : 'offline'));
      const sub = el('div', 'sub', w.local
        ? `runs ${state.hands ? "the brain's own tools" : 'every tool (single-machine mode)'} · ${w.runningTasks} running`
        : w.online
          ? `last heartbeat ${ago(w.lastHeartbeat)} ago · ${w.runningTasks}/${w.maxConcurrency} running · ${w.hostname}`
          : `offline · last seen ${ago(w.lastHeartbeat)} ago`);
      li.append(top, sub);
      if (w.paired) {
        // A machine that joined with a code has a token of its own, which can be taken back.
        const revoke = el('button', 'link-button', 'Revoke');
        revoke.dataset.testid = 'revoke';
        revoke.title = 'Take back this machine\'s token and disconnect it';
        revoke.addEventListener('click', () => {
          if (window.confirm(`Revoke ${w.name}? It is disconnected at once and must pair again to come back.`)) {
            say('/workers revoke ' + w.id);
          }
        });
        top.append(revoke);
      }
      workers.append(li);
    }
    const machines = state.workers.filter((w) => !w.local);
    const online = machines.filter((w) => w.online).length;
    $('worker-count').textContent = machines.length ? `${online} of ${machines.length} online` : '';
    $('workers-empty').hidden = machines.length > 0;
    $('workers-empty').textContent = state.hands
      ? 'No other machine has joined yet. Press "Pair a machine" for a one-time code and the command to run on it.'
      : 'This brain runs every tool itself; machines join when hands are enabled (--hands).';
    $('pair').hidden = !state.hands;
  }

  $('pair').addEventListener('click', () => say('/pair'));

  // The task view: one task's output (searchable), progress, attempts, machine and times; refreshed every second
  // while it runs. Cancel and "Run again" go through the chat, so what they did shows there too.
  const FINISHED = ['completed', 'failed', 'cancelled'];
  let viewing = null;
  let viewed = null;
  let viewTimer = null;

  function openTask(id) {
    viewing = id;
    viewed = null;
    $('tv-search').value = '';
    $('task-view').hidden = false;
    $('tv-title').textContent = 'Task';
    $('tv-output').textContent = 'Loading…';
    loadTask();
  }

  function closeTask() {
    viewing = null;
    clearTimeout(viewTimer);
    $('task-view').hidden = true;
  }

  async function loadTask() {
    clearTimeout(viewTimer);
    const id = viewing;
    if (!id) return;
    const r = await fetch('/api/v1/tasks/' + encodeURIComponent(id), { headers: headers() }).catch(() => null);
    if (viewing !== id) return;
    if (!r || !r.ok) {
      $('tv-output').textContent = r ? `This task cannot be shown (${r.status}).` : 'The brain cannot be reached; trying again.';
      viewTimer = setTimeout(loadTask, 2000);
      return;
    }
    viewed = await r.json();
    renderTask(viewed);
    if (!FINISHED.includes(viewed.status)) viewTimer = setTimeout(loadTask, 1000);
  }

  function when(iso) {
    return iso ? new Date(iso).toLocaleString() : '—';
  }

  function span(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    return s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min ' + (s % 60) + ' s'
      : Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }

  function renderTask(t) {
    const finished = FINISHED.includes(t.status);
    $('tv-title').textContent = t.tool;
    $('tv-status').textContent = t.status;
    $('tv-status').className = 'badge ' + t.status;
    $('tv-id').textContent = t.id;
    const took = finished && t.finishedAt ? span(Date.parse(t.finishedAt) - Date.parse(t.createdAt))
      : span(Date.now() - Date.parse(t.createdAt)) + ' so far';
    // The approval's last word, as the task list has it.
    const listed = lastState ? lastState.tasks.find((x) => x.id === t.id) : null;
    const approval = listed && listed.approval ? listed.approval : null;
    const facts = [
      ['Machine', t.runningOn || (t.worker ? t.worker + ' (asked for)' : 'whichever has the tool')],
      ['Attempt', `${t.attempt} of ${t.maxAttempts}`],
      ['Queued', when(t.createdAt)],
      [finished ? 'Finished' : 'Updated', when(finished ? t.finishedAt : t.updatedAt)],
      [finished ? 'Took' : 'Age', took],
      ['Timeout', span(t.timeoutMs)],
      ['Priority', String(t.priority)],
      ['From', t.session || '—'],
    ];
    if (t.waiting) facts.push(['Waiting', t.waiting]);
    if (approval) facts.push(['Approval', approval]);
    const dl = $('tv-facts');
    dl.replaceChildren();
    for (const [k, v] of facts) dl.append(el('dt', '', k), el('dd', '', v));
    const running = t.status === 'running' || t.status === 'claimed';
    const p = t.progress || null;
    $('tv-bar').hidden = !running;
    $('tv-bar').className = 'bar' + (p && p.percent ? '' : ' busy');
    $('tv-bar').firstElementChild.style.width = (p && p.percent ? p.percent : 0) + '%';
    $('tv-progress').textContent = running ? [p && p.percent ? p.percent + '%' : '', p ? p.message : 'started']
      .filter(Boolean).join(' · ') : '';
    $('tv-params').textContent = JSON.stringify(t.params, null, 2);
    $('tv-cancel').hidden = finished;
    $('tv-retry').hidden = !finished;
    renderOutput();
  }

  function renderOutput() {
    const t = viewed;
    if (!t) return;
    const text = t.output !== undefined ? t.output : (t.error || (FINISHED.includes(t.status) ? '(no output)'
      : 'The output appears when the task finishes; its latest line is above.'));
    const query = $('tv-search').value.trim().toLowerCase();
    const out = $('tv-output');
    out.replaceChildren();
    if (!query) {
      out.textContent = text;
      $('tv-matches').textContent = '';
      return;
    }
    const lines = text.split('\n');
    let shown = 0;
    for (const line of lines) {
      const lower = line.toLowerCase();
      if (!lower.includes(query)) continue;
      let at = 0;
      for (let i = lower.indexOf(query); i >= 0; i = lower.indexOf(query, at)) {
        out.append(document.createTextNode(line.slice(at, i)), el('mark', '', line.slice(i, i + query.length)));
        at = i + query.length;
      }
      out.append(document.createTextNode(line.slice(at) + '\n'));
      shown++;
    }
    $('tv-matches').textContent = `${shown} of ${lines.length} lines`;
  }

  $('tv-search').addEventListener('input', renderOutput);
  $('tv-close').addEventListener('click', closeTask);
  $('task-view').addEventListener('click', (e) => { if (e.target === $('task-view')) closeTask(); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && viewing) closeTask(); });
  $('tv-cancel').addEventListener('click', () => { if (viewing) { say('/cancel ' + viewing); setTimeout(loadTask, 300); } });
  $('tv-retry').addEventListener('click', () => {
    if (!viewed) return;
    say('/run ' + viewed.tool + ' ' + JSON.stringify(viewed.params || {}));
    closeTask();
  });

  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    say($('input').value);
    $('input').value = '';
    $('input').focus();
  });
  document.querySelectorAll('.chip').forEach((b) => b.addEventListener('click', () => say(b.dataset.cmd)));
  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    token = $('token').value.trim();
    tabStore.setItem('efferent.token', token);
    start();
  });
  start();
})();
