// The admin page: a client of /api/v1/admin. The admin key stays in this tab's sessionStorage.
'use strict';
const STATES = ['RECEIVED', 'VALIDATING', 'PROCESSING', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED'];
const $ = (id) => document.getElementById(id);
let selectedJob = null;
let timer = null;

function key() { return sessionStorage.getItem('ingestor-admin-key') || ''; }

async function api(method, path) {
  const response = await fetch('/api/v1/admin' + path, { method, headers: { 'X-Api-Key': key() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(body.detail || body.title || ('HTTP ' + response.status));
  }
  return body;
}

function text(value) { return value === null || value === undefined ? '' : String(value); }

function cell(row, value, className) {
  const td = document.createElement('td');
  td.textContent = text(value);
  if (className) { td.className = className; }
  row.appendChild(td);
  return td;
}

function say(message) { $('status').textContent = message; }

async function refresh() {
  if (!key()) { say('enter the admin key'); return; }
  try {
    const overview = await api('GET', '/overview');
    renderOverview(overview);
    renderFailed(await api('GET', '/failed-jobs?size=500'));
    await loadJobs();
    if (selectedJob) { await showJob(selectedJob); }
    say('updated ' + new Date().toLocaleTimeString());
  } catch (e) {
    say('error: ' + e.message);
  }
}

function renderOverview(overview) {
  const head = $('overview').tHead;
  head.innerHTML = '';
  const hr = head.insertRow();
  ['supplier', ...STATES].forEach((s) => { const th = document.createElement('th'); th.textContent = s; hr.appendChild(th); });
  const body = $('overview').tBodies[0];
  body.innerHTML = '';
  const all = body.insertRow();
  cell(all, 'all');
  STATES.forEach((s) => cell(all, overview.states[s] || 0, 'num state-' + s));
  Object.entries(overview.suppliers).forEach(([supplier, counts]) => {
    const row = body.insertRow();
    cell(row, supplier);
    STATES.forEach((s) => cell(row, counts[s] || 0, 'num'));
  });
  $('totals').textContent = 'dead letters waiting: ' + overview.deadLettersWaiting + ' · outbox not yet published: ' + overview.outboxPending;
}

function renderFailed(failed) {
  const body = $('failed').tBodies[0];
  body.innerHTML = '';
  $('failed-empty').hidden = failed.items.length > 0;
  failed.items.forEach((job) => {
    const row = body.insertRow();
    row.className = 'clickable';
    row.dataset.job = job.id;
    cell(row, job.id);
    cell(row, job.supplier);
    cell(row, job.fileName);
    cell(row, job.stage);
    cell(row, job.exception);
    cell(row, job.message || job.error);
    cell(row, job.attempts, 'num');
    cell(row, job.failedAt);
    const actions = cell(row, '');
    const button = document.createElement('button');
    button.textContent = 'Re-validate';
    button.className = 'revalidate';
    button.addEventListener('click', (event) => { event.stopPropagation(); act('POST', '/jobs/' + job.id + '/revalidate'); });
    actions.appendChild(button);
    if (job.deadLetterId) {
      const replay = document.createElement('button');
      replay.textContent = 'Replay';
      replay.addEventListener('click', (event) => { event.stopPropagation(); act('POST', '/dead-letters/' + job.deadLetterId + '/replay'); });
      actions.appendChild(replay);
    }
    row.addEventListener('click', () => showJob(job.id));
  });
}

async function loadJobs() {
  const params = new URLSearchParams({ size: '50' });
  if ($('filter-supplier').value) { params.set('supplier', $('filter-supplier').value); }
  if ($('filter-state').value) { params.set('state', $('filter-state').value); }
  const page = await api('GET', '/jobs?' + params);
  const body = $('jobs').tBodies[0];
  body.innerHTML = '';
  page.items.forEach((job) => {
    const row = body.insertRow();
    row.className = 'clickable';
    row.dataset.job = job.id;
    cell(row, job.id);
    cell(row, job.supplier);
    cell(row, job.state, 'state-' + job.state);
    cell(row, job.fileName);
    cell(row, job.source);
    cell(row, job.progress.total ? job.progress.recordsDone + ' / ' + job.progress.total : '');
    cell(row, job.receivedAt);
    row.addEventListener('click', () => showJob(job.id));
  });
}

async function showJob(id) {
  selectedJob = id;
  const detail = await api('GET', '/jobs/' + id);
  $('detail').hidden = false;
  $('detail-id').textContent = id;
  $('detail-job').textContent = JSON.stringify(detail.job, null, 2);
  const records = $('detail-records').tBodies[0];
  records.innerHTML = '';
  (detail.quarantined.items || []).forEach((r) => {
    const row = records.insertRow();
    cell(row, r.line); cell(row, r.sourceId); cell(row, r.reason);
  });
  const letters = $('detail-letters').tBodies[0];
  letters.innerHTML = '';
  detail.deadLetters.forEach((d) => {
    const row = letters.insertRow();
    cell(row, d.id); cell(row, d.stage); cell(row, d.exception); cell(row, d.message); cell(row, d.attempts, 'num');
    cell(row, d.replayedAt ? d.replayedAt + ' by ' + d.replayedBy : '');
    const actions = cell(row, '');
    if (!d.replayedAt) {
      const replay = document.createElement('button');
      replay.textContent = 'Replay';
      replay.addEventListener('click', () => act('POST', '/dead-letters/' + d.id + '/replay'));
      actions.appendChild(replay);
    }
  });
}

async function act(method, path) {
  try {
    const result = await api(method, path);
    say(path + ': ' + (result.result || JSON.stringify(result)));
  } catch (e) {
    say(path + ': ' + e.message);
  }
  await refresh();
}

function schedule() {
  if (timer) { clearInterval(timer); }
  timer = $('live').checked ? setInterval(refresh, 3000) : null;
}

STATES.forEach((s) => { const o = document.createElement('option'); o.value = s; o.textContent = s; $('filter-state').appendChild(o); });
$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem('ingestor-admin-key', $('key').value);
  refresh();
});
$('filter').addEventListener('submit', (event) => { event.preventDefault(); loadJobs().catch((e) => say('error: ' + e.message)); });
$('revalidate').addEventListener('click', () => act('POST', '/jobs/' + selectedJob + '/revalidate'));
$('reprocess').addEventListener('click', () => act('POST', '/jobs/' + selectedJob + '/reprocess'));
$('live').addEventListener('change', schedule);
schedule();
refresh();
