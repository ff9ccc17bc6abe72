// The timeline page: fetch a page of memories, draw them, and send the person's acts to
// the server (which goes through MemoryGraph's curation API). No framework, no build.
"use strict";

const body = document.body;
const TOKEN = body.dataset.token;
const state = {
  page: 1,
  size: Number(body.dataset.size) || 100,
  agent: body.dataset.agent || "",
  selected: new Set(),
  pages: 1,
};

function $(id) { return document.getElementById(id); }

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

async function call(method, path, payload) {
  const options = { method, headers: { "X-Graphmem-Token": TOKEN } };
  if (payload !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(payload);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) { $("status").textContent = text; }

function by() {
  const name = $("by").value.trim();
  if (!name) { $("by").focus(); throw new Error("say who you are in “Acting as” first"); }
  return name;
}

// "2024-02-01T00:00:00+00:00" -> "2024-02-01"; with a time of day -> "2024-02-01 14:30 UTC"
function day(iso) {
  if (!iso) return "?";
  const [date, rest] = iso.split("T");
  const time = rest.replace("+00:00", "").slice(0, 5);
  return time === "00:00" ? date : `${date} ${time} UTC`;
}

function meter(utility) {
  const bar = el("meter", { min: 0, max: 1, value: utility.S, className: "decay" });
  bar.setAttribute("aria-label", `utility S ${utility.S}`);
  const terms = el("span", { className: "terms",
    textContent: `S ${utility.S.toFixed(2)} · R ${utility.R.toFixed(2)} · ` +
                 `E ${utility.E.toFixed(2)} · U ${utility.U.toFixed(2)}` });
  return el("div", { className: "utility" }, bar, terms);
}

function actionButton(label, action, item, describe) {
  const button = el("button", { type: "button", textContent: label, className: action });
  button.dataset.action = action;
  button.setAttribute("aria-label", `${describe} “${item.text.slice(0, 60)}”`);
  button.addEventListener("click", () => act(action, item.id));
  return button;
}

function node(item) {
  const li = el("li", { className: `memory ${item.status}` +
    (item.forgotten ? " forgotten" : "") + (item.pinned ? " pinned" : "") });
  li.dataset.id = item.id;
  const pick = el("input", { type: "checkbox", checked: state.selected.has(item.id) });
  pick.setAttribute("aria-label", `select “${item.text.slice(0, 60)}” to consolidate`);
  pick.addEventListener("change", () => {
    if (pick.checked) state.selected.add(item.id); else state.selected.delete(item.id);
    updateSelection();
  });
  const when = el("time", { textContent: item.t ? day(item.t) : `learned ${day(item.recorded_at)}`,
                            dateTime: item.t || item.recorded_at || "" });
  const text = el(item.forgotten ? "s" : "span", { className: "text", textContent: item.text });
  const badges = el("span", { className: "badges" },
    el("span", { className: `badge ${item.status}`, textContent: item.status }),
    item.kind !== "episodic" ? el("span", { className: "badge", textContent: item.kind }) : null,
    item.pinned ? el("span", { className: "badge pin", textContent: "retained" }) : null,
    item.forgotten ? el("span", { className: "badge", textContent: "forgotten" }) : null);
  const facts = el("ul", { className: "facts" },
    el("li", { textContent: `owners: ${item.owners.join(", ") || "none"}` }));
  if (item.superseded_by) {
    facts.append(el("li", { textContent: `superseded by ${item.superseded_by}` +
      (item.valid_until ? ` from ${day(item.valid_until)}` : "") }));
  }
  if (item.salience > 0) {
    facts.append(el("li", { textContent: `salience ${item.salience.toFixed(2)}` }));
  }
  for (const c of item.conflicts) {
    facts.append(el("li", { textContent: `conflicts with: ${c.text}` }));
  }
  if (item.consolidated_into.length) {
    facts.append(el("li", { textContent: `consolidated into ${item.consolidated_into.join(", ")}` }));
  }
  const actions = el("div", { className: "actions" },
    item.pinned ? actionButton("Unpin", "unpin", item, "Stop retaining")
                : actionButton("Retain", "pin", item, "Retain"),
    item.forgotten ? actionButton("Undo forget", "unforget", item, "Bring back")
                   : actionButton("Forget", "forget", item, "Forget"));
  li.append(el("label", { className: "pick" }, pick), when,
            el("div", { className: "content" }, text, badges, facts), meter(item.utility), actions);
  return li;
}

function updateSelection() {
  const button = $("consolidate");
  button.textContent = `Consolidate selected (${state.selected.size})`;
  button.disabled = state.selected.size < 2;
}

const UNDO = { pin: "unpin", unpin: "pin", forget: "unforget", unforget: "forget" };

// focusId/focusAction: after an act, the keyboard focus lands on the button that undoes it
async function load(focusId, focusAction) {
  const query = new URLSearchParams({ page: state.page, size: state.size, agent: state.agent });
  try {
    const data = await call("GET", `/api/page?${query}`);
    state.page = data.page;
    state.pages = data.pages;
    $("timeline").replaceChildren(...data.items.map(node));
    $("position").textContent = `Page ${data.page} of ${data.pages} · ${data.total} memories`;
    $("prev").disabled = data.page <= 1;
    $("next").disabled = data.page >= data.pages;
    const url = new URL(window.location);
    url.searchParams.set("page", data.page);
    url.searchParams.set("agent", state.agent);
    history.replaceState(null, "", url);
    body.dataset.loaded = String(Date.now());
    if (focusId) {
      const again = document.querySelector(
        `li[data-id="${CSS.escape(focusId)}"] button[data-action="${focusAction}"]`);
      if (again) again.focus();
    }
  } catch (error) {
    say(`Could not load the timeline: ${error.message}`);
  }
}

async function act(action, id) {
  try {
    await call("POST", "/api/act", { action, id, by: by() });
    say(`${action}: done`);
    await load(id, UNDO[action]);
  } catch (error) {
    say(`${action} failed: ${error.message}`);
  }
}

async function preview() {
  try {
    const ids = [...state.selected];
    const data = await call("POST", "/api/preview", { ids });
    $("preview-lead").textContent = data.model_summary
      ? "The configured chat model will word the fact; if its answer is unusable it will read:"
      : "The fact will read:";
    $("preview-text").textContent = data.text;
    $("preview-owners").textContent = data.owners.join(", ") || "nobody";
    $("preview-sources").replaceChildren(...data.sources.map(s => el("li", { textContent: s.text })));
    $("preview").showModal();
    $("confirm").focus();
  } catch (error) {
    say(`Preview failed: ${error.message}`);
  }
}

async function confirmConsolidate() {
  try {
    const data = await call("POST", "/api/consolidate", { ids: [...state.selected], by: by() });
    $("preview").close();
    state.selected.clear();
    updateSelection();
    say(`consolidated into ${data.id}`);
    await load();
  } catch (error) {
    say(`Consolidate failed: ${error.message}`);
  }
}

async function start() {
  const params = new URLSearchParams(window.location.search);
  state.page = Number(params.get("page")) || 1;
  state.agent = params.has("agent") ? params.get("agent") : state.agent;
  $("by").value = body.dataset.by;
  try {
    const { agents } = await call("GET", "/api/agents");
    $("agent").append(...agents.map(a => el("option", { value: a, textContent: a })));
    $("agent").value = state.agent;
  } catch (error) {
    say(`Could not list the agents: ${error.message}`);
  }
  $("agent").addEventListener("change", () => { state.agent = $("agent").value; state.page = 1; load(); });
  $("refresh").addEventListener("click", () => load());
  $("prev").addEventListener("click", () => { state.page -= 1; load(); });
  $("next").addEventListener("click", () => { state.page += 1; load(); });
  $("consolidate").addEventListener("click", preview);
  $("confirm").addEventListener("click", confirmConsolidate);
  $("cancel").addEventListener("click", () => $("preview").close());
  $("controls").addEventListener("submit", event => event.preventDefault());
  await load();
}

start();
