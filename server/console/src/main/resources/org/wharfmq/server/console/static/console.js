/*
 * The Wharf web console. Everything it shows comes from /api/ (the admin commands over HTTP, docs/operations.md) and
 * is written into the page as text (textContent, never innerHTML): a queue name or a message body cannot become
 * markup or script. Actions are POSTs carrying the header X-Wharf-Console: 1, which the server requires of every POST
 * (a page of another site cannot send it). Rates are computed here from the queues' enqueued/dequeued totals, sampled
 * every REFRESH_MILLIS.
 */
'use strict';

const REFRESH_MILLIS = 2000;
/** Samples kept per queue for its chart: two minutes at REFRESH_MILLIS. */
const HISTORY = 60;
/** Messages a browse shows. */
const BROWSE_LIMIT = 20;
/** The header every POST carries (the server refuses a POST without it). */
const CSRF_HEADER = 'X-Wharf-Console';
const COLOURS = { in: '#2a8a4a', out: '#c0562a' };
/** What a queue's origin (display-queues) means, for its name's tooltip. */
const ORIGINS = {
  CONFIGURATION: 'defined in the configuration file', ALTERED: 'defined in the configuration file, altered at run time',
  DEFINED: 'defined at run time', CREATED_BY_USE: 'created by use', TEMPORARY: 'a temporary queue',
  SYSTEM: "the queue manager's own",
};
/** The origins of the queues an administrator may delete (not the configuration file's, temporary or system ones). */
const DELETABLE = new Set(['DEFINED', 'CREATED_BY_USE']);

const state = {
  tab: 'queues',
  admin: false,
  /** Per queue: its last totals and the rate history its chart draws. */
  queues: new Map(),
  total: { times: [], in: [], out: [], plot: null },
};

// ---- talking to the server ----

/**
 * The URL of an API command. Built on location.origin, which leaves out a user name and password the page's address
 * may hold (http://user:pw@host/): fetch refuses URLs with credentials, and the browser sends the login it keeps.
 */
function apiUrl(command) {
  return new URL('/api/' + command, window.location.origin);
}

async function api(command, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  const url = apiUrl(command);
  url.search = query.toString();
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
  return answer(response);
}

async function act(command, args) {
  const response = await fetch(apiUrl(command), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', [CSRF_HEADER]: '1' },
    body: JSON.stringify(args),
  });
  return answer(response);
}

async function answer(response) {
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new Error(text || (response.status + ' ' + response.statusText));
  }
  return response.json();
}

// ---- building the page: text only ----

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else if (name === 'onclick') node.addEventListener('click', value);
    else if (name.startsWith('data-')) node.dataset[name.slice(5)] = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function cell(text, cls) {
  return el('td', { text: text === null || text === undefined ? '' : String(text), class: cls || '' });
}

function say(text, error) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.className = error ? 'error' : '';
  status.hidden = false;
}

function bytes(n) {
  if (n === null || n === undefined || n < 0) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

function duration(ms) {
  if (ms === null || ms === undefined) return '-';
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

function rate(r) {
  return r === undefined ? '-' : (r < 10 ? r.toFixed(1) : Math.round(r).toString());
}

function when(epochMillis) {
  return epochMillis ? new Date(epochMillis).toLocaleString() : '-';
}

/** A confirmation in the page (a dialog of our own: its text is set as text). */
function confirmed(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise(resolve => {
    const ok = document.getElementById('confirm-ok');
    const cancel = document.getElementById('confirm-cancel');
    const done = value => {
      ok.removeEventListener('click', yes);
      cancel.removeEventListener('click', no);
      dialog.close();
      resolve(value);
    };
    const yes = () => done(true);
    const no = () => done(false);
    ok.addEventListener('click', yes);
    cancel.addEventListener('click', no);
    dialog.showModal();
  });
}

/** Runs an action, says its outcome and refreshes what it changed. */
async function run(what, command, args, outcome) {
  try {
    const result = await act(command, args);
    say(outcome(result));
  } catch (e) {
    say(what + ' failed: ' + e.message, true);
  }
  refresh();
}

// ---- charts ----

function sparkline(target) {
  return new uPlot({
    width: 180, height: 38,
    legend: { show: false }, cursor: { show: false }, select: { show: false },
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(1, max) * 1.15] } },
    axes: [{ show: false }, { show: false }],
    series: [{}, { stroke: COLOURS.in, width: 1.5, points: { show: false } },
      { stroke: COLOURS.out, width: 1.5, points: { show: false } }],
  }, [[], [], []], target);
}

function totalChart(target) {
  return new uPlot({
    width: Math.max(400, target.clientWidth || 900), height: 160,
    legend: { show: false },
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(1, max) * 1.15] } },
    axes: [{
      space: 90, incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600], // whole seconds at least
      values: (u, ticks) => ticks.map(t => new Date(t * 1000).toLocaleTimeString()),
    }, {}],
    series: [{}, { label: 'in/s', stroke: COLOURS.in, width: 2, points: { show: false } },
      { label: 'out/s', stroke: COLOURS.out, width: 2, points: { show: false } }],
  }, [[], [], []], target);
}

function push(history, time, inRate, outRate) {
  history.times.push(time);
  history.in.push(inRate);
  history.out.push(outRate);
  if (history.times.length > HISTORY) {
    history.times.shift();
    history.in.shift();
    history.out.shift();
  }
}

// ---- queues ----

async function refreshQueues() {
  const pattern = document.getElementById('queue-filter').value.trim();
  const queues = await api('display-queues', { pattern });
  const now = Date.now() / 1000;
  const tbody = document.querySelector('#queues tbody');
  const seen = new Set();
  let totalIn = 0, totalOut = 0, sampled = false;
  queues.forEach((q, index) => {
    seen.add(q.name);
    let entry = state.queues.get(q.name);
    if (!entry) {
      entry = { times: [], in: [], out: [], row: queueRow(q.name) };
      state.queues.set(q.name, entry);
    }
    let inRate, outRate;
    if (entry.last && q.enqueued >= entry.last.enqueued && q.dequeued >= entry.last.dequeued && now > entry.last.time) {
      const seconds = now - entry.last.time;
      inRate = (q.enqueued - entry.last.enqueued) / seconds;
      outRate = (q.dequeued - entry.last.dequeued) / seconds;
      push(entry, now, inRate, outRate);
      totalIn += inRate;
      totalOut += outRate;
      sampled = true;
    }
    entry.last = { time: now, enqueued: q.enqueued, dequeued: q.dequeued };
    fillQueueRow(entry, q, inRate, outRate);
    if (tbody.children[index] !== entry.row) tbody.insertBefore(entry.row, tbody.children[index] || null);
    if (!entry.plot) entry.plot = sparkline(entry.row.querySelector('td.chart'));
    entry.plot.setData([entry.times, entry.in, entry.out]);
  });
  for (const [name, entry] of state.queues) {
    if (!seen.has(name)) {
      if (entry.plot) entry.plot.destroy();
      entry.row.remove();
      state.queues.delete(name);
    }
  }
  if (sampled) {
    const total = state.total;
    push(total, now, totalIn, totalOut);
    if (!total.plot) total.plot = totalChart(document.getElementById('total-chart'));
    total.plot.setData([total.times, total.in, total.out]);
  }
}

function queueRow(name) {
  const row = el('tr', { 'data-queue': name },
    cell(name, 'name'), cell('', 'num depth'), cell('', 'num consumers'), cell('', 'num producers'),
    cell('', 'num oldest'), cell('', 'num in'), cell('', 'num out'), cell('', 'chart'),
    el('td', { class: 'actions admin-only' },
      el('button', { type: 'button', class: 'browse', text: 'Browse', onclick: () => browse(name) }),
      el('button', { type: 'button', class: 'move', text: 'Move', onclick: () => move(name) }),
      el('button', { type: 'button', class: 'purge danger', text: 'Purge', onclick: () => purge(name) }),
      el('button', { type: 'button', class: 'delete danger', text: 'Delete', onclick: () => remove(name) })));
  return row;
}

function fillQueueRow(entry, q, inRate, outRate) {
  const cells = entry.row.children;
  cells[1].textContent = q.depth;
  cells[1].title = 'at most ' + q.maxDepth + (q.ownMaxDepth ? ' (its own limit)' : " (the server's limit)");
  cells[2].textContent = q.consumers + (q.browsers ? ' + ' + q.browsers + ' browsing' : '');
  cells[3].textContent = q.producers;
  cells[4].textContent = q.oldestMessageAgeMillis === null ? '-' : duration(q.oldestMessageAgeMillis);
  cells[5].textContent = rate(inRate);
  cells[6].textContent = rate(outRate);
  entry.row.classList.toggle('deep', q.maxDepth > 0 && q.depth >= q.maxDepth * 0.8);
  cells[0].title = ORIGINS[q.origin] || q.origin;
  // the server refuses to delete these (it says why); the page does not offer it
  entry.row.querySelector('button.delete').hidden = !DELETABLE.has(q.origin);
  entry.depth = q.depth;
  entry.consumers = q.consumers;
}

async function purge(name) {
  const depth = state.queues.get(name)?.depth;
  if (!await confirmed('Purge queue ' + name + '? Its ' + depth + ' waiting messages are removed for good '
    + '(delivered, transactional and delayed ones stay).')) return;
  run('Purge of ' + name, 'clear-queue', { queue: name },
    r => 'Purged ' + r.removed + ' messages from ' + r.queue + (r.depth ? '; ' + r.depth + ' delivered, '
      + 'transactional or delayed ones stay.' : '.'));
}

async function remove(name) {
  const entry = state.queues.get(name);
  if (!await confirmed('Delete queue ' + name + '?' + (entry && (entry.depth || entry.consumers)
    ? ' Its ' + entry.depth + ' waiting messages are discarded and its ' + entry.consumers
      + ' consumers told.' : ''))) return;
  run('Delete of ' + name, 'delete-queue', { queue: name, force: true },
    r => 'Deleted queue ' + r.queue + (r.discarded ? ', discarding ' + r.discarded + ' messages.' : '.'));
}

function move(name) {
  const dialog = document.getElementById('move-dialog');
  const form = document.getElementById('move-form');
  form.reset();
  document.getElementById('move-title').textContent = 'Move messages from ' + name;
  form.onsubmit = event => {
    event.preventDefault();
    dialog.close();
    const limit = form.elements.limit.value;
    run('Move from ' + name, 'move', {
      from: name, to: form.elements.to.value.trim(), selector: form.elements.selector.value.trim() || null,
      limit: limit ? Number(limit) : null,
    }, r => 'Moved ' + r.messages + ' messages from ' + r.from + ' to ' + r.to + (r.stopped ? ': ' + r.stopped : '.'));
  };
  dialog.showModal();
}

async function browse(name) {
  const dialog = document.getElementById('browse-dialog');
  const list = document.getElementById('browse-messages');
  document.getElementById('browse-title').textContent = 'Messages on ' + name;
  list.replaceChildren();
  try {
    const messages = await api('browse-queue', { queue: name, limit: BROWSE_LIMIT });
    if (messages.length === 0) list.append(el('p', { text: 'No waiting messages.' }));
    for (const m of messages) list.append(shownMessage(m));
    if (messages.length === BROWSE_LIMIT) list.append(el('p', { text: 'The first ' + BROWSE_LIMIT + ' shown.' }));
  } catch (e) {
    list.append(el('p', { text: 'Browse failed: ' + e.message }));
  }
  dialog.showModal();
}

function shownMessage(m) {
  const rows = [
    ['Position', m.position], ['JMSMessageID', m.messageId], ['JMSCorrelationID', m.correlationId],
    ['JMSTimestamp', when(m.timestamp)], ['JMSExpiration', m.expiration ? when(m.expiration) : 'never'],
    ['JMSPriority', m.priority], ['Persistent', m.persistent], ['JMSType', m.type], ['JMSReplyTo', m.replyTo],
    ['Delivery count', m.deliveryCount],
  ].filter(([, v]) => v !== null && v !== undefined);
  for (const [name, value] of Object.entries(m.properties || {})) rows.push([name, JSON.stringify(value)]);
  const body = m.body;
  const text = body.length < 0 ? '(no body)' : body.text !== null ? body.text : body.hex;
  return el('div', { class: 'message' },
    el('table', {}, el('tbody', {}, ...rows.map(([k, v]) => el('tr', {}, cell(k), cell(v))))),
    el('p', { text: body.type + ' body, ' + Math.max(0, body.length) + ' bytes' + (body.truncated ? ' (the start shown)' : '')
      + (body.text === null && body.length >= 0 ? ', in hexadecimal' : '') + ':' }),
    el('pre', { text }));
}

// ---- connections, subscriptions, topics, flows, server ----

async function refreshConnections() {
  const connections = await api('display-connections');
  document.querySelector('#connections tbody').replaceChildren(...connections.map(c => el('tr', { 'data-connection': c.id },
    cell(c.id, 'num'), cell(c.user || '(anonymous)'), cell(c.address), cell(c.transport), cell(c.clientId),
    cell(c.clientName), cell(when(c.connectedAt)), cell(c.sessions, 'num'), cell(c.consumers, 'num'),
    cell(c.producers, 'num'), cell(bytes(c.bytesIn), 'num'), cell(bytes(c.bytesOut), 'num'),
    el('td', { class: 'actions admin-only' }, c.transport === 'vm' ? null : el('button', {
      type: 'button', class: 'end danger', text: 'End', onclick: () => endConnection(c),
    })))));
}

async function endConnection(c) {
  if (!await confirmed('End connection ' + c.id + ' of ' + (c.user || 'an anonymous client') + ' from ' + c.address
    + '? The client is told and does not reconnect.')) return;
  run('Ending connection ' + c.id, 'end-connection', { connection: c.id }, () => 'Ended connection ' + c.id + '.');
}

async function refreshTopics() {
  const [subscriptions, topics] = await Promise.all([api('display-subscriptions'), api('topics')]);
  document.querySelector('#subscriptions tbody').replaceChildren(...subscriptions.map(s => el('tr', {},
    cell(s.topic, 'name'), cell(s.name), cell(s.clientId), cell((s.durable ? 'durable' : 'non-durable')
      + (s.shared ? ', shared' : '')), cell(s.consumers, 'num'), cell(s.depth, 'num'), cell(s.missed, 'num'),
    cell(s.selector),
    el('td', { class: 'actions admin-only' }, s.durable ? el('button', {
      type: 'button', class: 'danger', text: 'Delete', onclick: () => deleteSubscription(s),
    }) : null))));
  document.getElementById('topics').textContent = topics;
}

async function deleteSubscription(s) {
  if (!await confirmed('Delete durable subscription ' + s.name + ' on ' + s.topic + ' and its ' + s.depth
    + ' messages?')) return;
  run('Delete of subscription ' + s.name, 'delete-subscription', { subscription: s.name, clientId: s.clientId },
    () => 'Deleted subscription ' + s.name + '.');
}

async function refreshFlows() {
  let text;
  try {
    text = await api('stats');
  } catch (e) {
    text = 'No flow statistics: ' + e.message;
  }
  document.getElementById('flows').textContent = text;
}

// ---- channels ----

/** A channel's attributes an operator may alter from the page (docs/distributed.md lists each). */
const CHANNEL_ATTRIBUTES = {
  sender: ['connection', 'transmissionQueue', 'user', 'batchSize', 'batchBytes', 'batchIntervalMillis',
    'disconnectIntervalMillis', 'retryMillis', 'maxRetryMillis', 'heartbeatMillis', 'connectTimeoutMillis',
    'pipelineLength'],
  receiver: ['partnerUser', 'partnerCertificate', 'partnerQueueManager', 'nonPersistentSpeed', 'maxBatchAttempts'],
};

async function refreshChannels() {
  let channels;
  try {
    channels = await api('display-chstatus');
  } catch (e) {
    channels = []; // a queue manager without the channels plugin
  }
  document.querySelector('#channels tbody').replaceChildren(...channels.map(c => el('tr', { 'data-channel': c.name },
    cell(c.name, 'name'), cell(c.type), cell(c.state),
    cell(c.type === 'sender' ? (c.inDoubt ? 'YES: ' + (c.batchesInDoubt || []).map(batchNamed).join(', ') : 'no') : '-'),
    cell(c.partner), cell(c.transmissionQueue), cell(c.transmissionQueueDepth, 'num'), cell(c.messages, 'num'),
    cell(bytes(c.bytes), 'num'), cell(c.batches, 'num'), cell(c.sequence, 'num'), cell(c.lastBatchId, 'num'),
    cell(c.nonPersistentSpeed || '-', 'speed'), cell(c.reason, 'reason'), el('td', { class: 'actions admin-only' }, ...channelActions(c)))));
  await refreshHierarchy();
}

/** A sender's batch in doubt as display chstatus names it: "batch 7 (10 messages, sequence numbers 61 to 70)". */
function batchNamed(b) {
  return 'batch ' + b.batch + ' (' + b.messages + (b.messages === 1 ? ' message' : ' messages')
    + (b.lastSequence == null ? ')' : b.firstSequence === b.lastSequence ? ', sequence number ' + b.lastSequence + ')'
      : ', sequence numbers ' + b.firstSequence + ' to ' + b.lastSequence + ')');
}

/** The buttons of a channel's row: start or stop, alter, reset, resolve (a sender with a batch in doubt), delete. */
function channelActions(c) {
  const name = c.name;
  return [
    c.state === 'STOPPED'
      ? el('button', { type: 'button', text: 'Start', onclick: () => run('Start of channel ' + name,
        'start-channel', { channel: name }, text => text + '.') })
      : el('button', { type: 'button', class: 'danger', text: 'Stop', onclick: () => stopChannel(c) }),
    el('button', { type: 'button', text: 'Alter', onclick: () => alterChannel(c) }),
    el('button', { type: 'button', text: 'Reset', onclick: () => resetChannel(c) }),
    c.inDoubt ? el('button', { type: 'button', text: 'Resolve', onclick: () => resolveChannel(c) }) : null,
    el('button', { type: 'button', class: 'danger', text: 'Delete', onclick: () => deleteChannel(c) }),
  ];
}

async function stopChannel(c) {
  const what = c.type === 'sender'
    ? 'It sends nothing more, even across restarts, until started; its transmission queue ' + c.transmissionQueue
      + ' keeps its messages.'
    : "Its partner's session ends and the partner is refused, even across restarts, until started; the sender"
      + ' retries.';
  if (!await confirmed('Stop channel ' + c.name + '? ' + what)) return;
  run('Stop of channel ' + c.name, 'stop-channel', { channel: c.name }, stopped => stopped.description + '.');
}

/**
 * Asks for a few values in the channel dialog: each field a [name, label, kind] (kind: 'text', 'number' or an array
 * of choices). Resolves to the values by name, or null when cancelled.
 */
function ask(title, fields) {
  const dialog = document.getElementById('channel-dialog');
  const form = document.getElementById('channel-form');
  document.getElementById('channel-title').textContent = title;
  document.getElementById('channel-fields').replaceChildren(...fields.map(([name, label, kind]) => el('label', {},
    label + ' ', Array.isArray(kind)
      ? el('select', { name }, ...kind.map(choice => el('option', { value: choice, text: choice })))
      : el('input', { name, type: kind, required: '' }))));
  return new Promise(resolve => {
    const cancel = document.getElementById('channel-cancel');
    const done = values => {
      form.removeEventListener('submit', submit);
      cancel.removeEventListener('click', no);
      dialog.removeEventListener('cancel', no); // Escape
      dialog.close();
      resolve(values);
    };
    const submit = event => {
      event.preventDefault();
      done(Object.fromEntries(fields.map(([name]) => [name, form.elements[name].value])));
    };
    const no = () => done(null);
    form.addEventListener('submit', submit);
    cancel.addEventListener('click', no);
    dialog.addEventListener('cancel', no);
    dialog.showModal();
  });
}

async function alterChannel(c) {
  const v = await ask('Alter channel ' + c.name + ' (an empty value puts the default back)',
    [['attribute', 'Attribute', CHANNEL_ATTRIBUTES[c.type]], ['value', 'Value', 'text']]);
  if (!v) return;
  run('Alter of channel ' + c.name, 'alter-channel', { channel: c.name, [v.attribute]: v.value }, text => text + '.');
}

async function resetChannel(c) {
  const v = await ask('Reset the sequence number of channel ' + c.name, [['sequence', 'Sequence number', 'number']]);
  if (!v) return;
  run('Reset of channel ' + c.name, 'reset-channel', { channel: c.name, sequence: Number(v.sequence) },
    text => text + '.');
}

async function resolveChannel(c) {
  const batches = c.batchesInDoubt || [];
  const fields = [['action', 'Action', ['backout', 'commit']]];
  if (batches.length > 1) fields.unshift(['batch', 'Batch', batches.map(b => String(b.batch))]);
  const v = await ask('Resolve ' + batches.map(batchNamed).join(' or ') + ', in doubt, of channel ' + c.name + ': commit'
    + ' a batch the receiver has (its LAST BATCH at least the batch\'s id), back out one it has not; the oldest is'
    + ' committed first, the newest backed out first', fields);
  if (!v) return;
  const args = { channel: c.name, action: v.action };
  if (v.batch) args.batch = Number(v.batch);
  run('Resolve of channel ' + c.name, 'resolve-channel', args, text => text);
}

async function deleteChannel(c) {
  if (!await confirmed('Delete channel ' + c.name + '? A sender must be stopped first; its transmission queue keeps'
    + ' its messages.')) return;
  run('Delete of channel ' + c.name, 'delete-channel', { channel: c.name }, text => text + '.');
}

async function refreshHierarchy() {
  let h;
  try {
    h = await api('display-pubsub');
  } catch (e) {
    h = null; // a queue manager without the hierarchy plugin
  }
  const partners = h ? h.partners : [];
  document.getElementById('hierarchy-summary').textContent = !h || partners.length === 0
    ? 'Not in a publish/subscribe hierarchy.'
    : h.queueManager + ': parent ' + (h.parent || 'none') + ', children ' + (h.children.join(', ') || 'none') + '.';
  document.getElementById('hierarchy').hidden = partners.length === 0;
  document.querySelector('#hierarchy tbody').replaceChildren(...partners.map(p => el('tr', { 'data-partner':
      p.queueManager }, cell(p.queueManager, 'name'), cell(p.relation), cell(p.state),
    cell(p.proxySubscriptions, 'num'), cell(p.subscriptionsSent === null ? '-' : p.subscriptionsSent, 'num'),
    cell(p.subscriptionSetsReceived, 'num'), cell(p.publicationsForwarded, 'num'),
    cell(p.channels.length ? p.channels.map(c => c.name + ' ' + c.state).join(', ') : '-'),
    cell([p.reason, p.refused && 'proxy subscriptions refused: ' + p.refused].filter(Boolean).join('; ') || null,
      'reason'))));
}

async function refreshServer() {
  const s = await api('display-server');
  document.getElementById('server-name').textContent = s.name;
  document.title = 'Wharf ' + s.name;
  const summary = [['Version', s.version], ['Up', duration(s.uptimeMillis)], ['Queues', s.queues],
    ['Connections', s.connections], ['Journal', bytes(s.journalBytes)], ['Heap', bytes(s.heapUsedBytes)]];
  document.getElementById('summary').replaceChildren(...summary.map(([k, v]) =>
    el('div', {}, el('dt', { text: k }), el('dd', { text: String(v) }))));
  if (state.tab === 'server') {
    const rows = [['Name', s.name], ['Version', s.version], ['Started', when(s.startedAt)],
      ['Uptime', duration(s.uptimeMillis)], ['Listeners', (s.listeners || []).join(', ')],
      ['Data directory', s.dataDirectory],
      ['Journal', s.journalBytes < 0 ? 'none (no persistence)' : bytes(s.journalBytes) + ' of records, live and dead'],
      ['Queues', s.queues], ['Subscriptions', s.subscriptions], ['Connections', s.connections],
      ['Heap', bytes(s.heapUsedBytes) + ' of ' + bytes(s.heapMaxBytes)],
      ['Message buffers (direct memory)', bytes(s.directUsedBytes)],
      ['Messages in memory', bytes(s.memoryUsedBytes) + ' of ' + bytes(s.memoryMaxBytes) + ' (maxMemoryBytes)']];
    const r = s.replication;
    if (r) { // a member of a replicated queue manager (docs/resilience.md): the active one, as replicas serve no one
      const members = Object.entries(r.behind || {}).map(([id, n]) => id + ' ' + catchingUp(r, id, n)).join(', ');
      rows.push(['Replication', 'member ' + r.member + ' of group ' + r.group + ', ' + r.role + ' (active: '
          + (r.active || '-') + ', term ' + r.term + ')'],
        ['In sync', r.inSync + '/' + Object.keys(r.members || {}).length + (members ? ' (' + members + ')' : '')],
        ['Members', Object.entries(r.members || {}).map(([id, address]) => id + ' ' + address).join(', ')],
        ['Replication backlog', bytes(r.backlogBytes)],
        ['Last applied', r.appliedIndex + ' (committed ' + r.committedIndex + ')'],
        ['Raft log', 'from index ' + r.logStartIndex + ', latest snapshot '
          + (r.snapshotIndex < 0 ? 'none' : 'at ' + r.snapshotIndex)
          + (r.snapshotsInstalled ? ', ' + r.snapshotsInstalled + ' installed from the active member' : '')]);
    }
    document.getElementById('server').replaceChildren(...rows.flatMap(([k, v]) =>
      [el('dt', { text: k }), el('dd', { text: v === null || v === undefined ? '-' : String(v) })]));
    showMembers(r);
  }
}

// ---- the members of a replicated queue manager (docs/resilience.md) ----

/** The members' table, with their actions, when this queue manager is replicated; hidden otherwise. */
function showMembers(r) {
  document.getElementById('replication').hidden = !r;
  if (!r) return;
  document.querySelector('#members tbody').replaceChildren(...Object.entries(r.members || {}).map(([id, address]) => {
    const behind = (r.behind || {})[id];
    const active = id === r.active;
    const what = active ? 'active' : behind === undefined ? '-' : catchingUp(r, id, behind);
    return el('tr', { 'data-member': id }, cell(id, 'name'), cell(address), cell(what),
      el('td', { class: 'actions admin-only' }, ...(active ? [] : memberActions(id))));
  }));
}

/**
 * A member unreachable (the active member has had no answer from it within the election timeout: down or cut off,
 * with its last answer's age), in sync, not heard from, or catching up: entries behind and, on the active member, the
 * bytes it lacks.
 */
function catchingUp(r, id, behind) {
  if ((r.unreachable || []).includes(id)) {
    const contact = (r.lastContactMillis || {})[id];
    return 'unreachable (down or cut off): ' + (contact === undefined ? 'no answer since this member became active'
      : 'last answer ' + duration(contact) + ' ago') + (behind > 0 ? ', ' + behind + ' entries behind' : '');
  }
  if (behind === 0) return 'in sync';
  if (behind < 0) return 'not heard from';
  const lacking = (r.behindBytes || {})[id];
  return 'catching up: ' + behind + ' entries behind' + (lacking === undefined ? '' : ', ' + bytes(lacking));
}

/** A replica's buttons: hand it the active role, remove it from the group. The active member has none. */
function memberActions(id) {
  return [
    el('button', { type: 'button', text: 'Switch over to', onclick: () => switchover(id) }),
    el('button', { type: 'button', class: 'danger', text: 'Delete', onclick: () => deleteMember(id) }),
  ];
}

async function switchover(id) {
  if (!await confirmed('Hand the active role to member ' + id + '? This member stops serving clients and rejoins as'
    + ' a replica in its process; clients reconnect to ' + id + ', transactions open now are rolled back.'
    + ' The third member must run.')) return;
  run('Switchover to member ' + id, 'switchover', { member: id }, text => text);
}

async function deleteMember(id) {
  if (!await confirmed('Remove member ' + id + ' from the group? Stop its process first; wipe its data directory'
    + ' before it ever joins again.')) return;
  run('Delete of member ' + id, 'delete-member', { member: id }, text => text);
}

const REFRESHERS = {
  queues: refreshQueues, connections: refreshConnections, topics: refreshTopics, flows: refreshFlows,
  channels: refreshChannels, server: () => Promise.resolve(),
};

let refreshing = false;

/** Asks for what the open tab shows and the header's summary; the queues are always sampled (their rates). */
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    const work = [refreshServer(), refreshQueues()];
    if (state.tab !== 'queues') work.push(REFRESHERS[state.tab]());
    await Promise.all(work);
    document.body.dataset.refreshed = String(Date.now());
  } catch (e) {
    say('Cannot refresh: ' + e.message, true);
  } finally {
    refreshing = false;
  }
}

// ---- start ----

function showTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll('#tabs button')) {
    button.classList.toggle('active', button.dataset.tab === tab);
  }
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== 'tab-' + tab;
  refresh();
}

async function start() {
  try {
    const me = await api('me');
    state.admin = me.admin;
    document.getElementById('who').textContent = (me.user ? me.user : 'anonymous')
      + (me.admin ? ' (admin)' : ' (monitor)');
  } catch (e) {
    say('Cannot tell who you are: ' + e.message, true);
  }
  document.body.classList.toggle('monitor-only', !state.admin);
  for (const button of document.querySelectorAll('#tabs button')) {
    button.addEventListener('click', () => showTab(button.dataset.tab));
  }
  document.getElementById('queue-filter').addEventListener('change', refresh);
  document.getElementById('move-cancel').addEventListener('click', () => document.getElementById('move-dialog').close());
  document.getElementById('browse-close').addEventListener('click',
    () => document.getElementById('browse-dialog').close());
  const define = document.getElementById('define-queue');
  define.addEventListener('submit', event => {
    event.preventDefault();
    const name = define.elements.queue.value.trim();
    const maxDepth = define.elements.maxDepth.value;
    run('Define queue ' + name, 'define-queue', { queue: name, maxDepth: maxDepth ? Number(maxDepth) : null },
      q => 'Defined queue ' + q.name + ' (at most ' + q.maxDepth + ' messages).');
    define.reset();
  });
  const defineChannel = document.getElementById('define-channel');
  defineChannel.addEventListener('submit', event => {
    event.preventDefault();
    const f = defineChannel.elements;
    const args = { channel: f.channel.value.trim(), type: f.type.value };
    const wanted = f.type.value === 'sender' ? ['connection', 'transmissionQueue'] : ['partnerQueueManager'];
    for (const name of wanted) if (f[name].value.trim()) args[name] = f[name].value.trim();
    run('Define channel ' + args.channel, 'define-channel', args, d => 'Defined ' + d.type + ' channel ' + d.name
      + '.');
    defineChannel.reset();
  });
  const defineMember = document.getElementById('define-member');
  defineMember.addEventListener('submit', event => {
    event.preventDefault();
    const f = defineMember.elements;
    const args = { member: f.member.value.trim(), address: f.address.value.trim() };
    say('Adding member ' + args.member + ': the active member brings it up to date first (up to 30 s).');
    run('Adding member ' + args.member, 'define-member', args, text => text);
    defineMember.reset();
  });
  await refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MILLIS);
}

document.addEventListener('DOMContentLoaded', start);
