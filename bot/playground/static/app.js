// The cafebot playground page: renders what one local user sees (Discord's message JSON, as the
// emulator holds it) and acts as that user through the server. No build step, no library.
"use strict";

const state = {
  me: null,            // my user id (string)
  world: null,         // channels, users, names, commands (from the "world" event)
  messages: new Map(), // id -> message JSON (everything I can see)
  pane: null,          // the channel id shown
  unread: new Map(),   // channel id -> count of messages arrived while not shown
  dismissed: new Set(),
  problems: [],
  source: null,
  command: null,       // the slash command being filled in: {path, decl}
  jumped: null,        // the message a jump link last opened (highlighted until the pane changes)
};

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
};

// ---------------------------------------------------------------------------------- who am I
function wantedUser() {
  const params = new URLSearchParams(location.search);
  return (params.get("as") || "").toLowerCase();
}

function switchTo(user) {
  const url = new URL(location.href);
  url.searchParams.set("as", user.name.toLowerCase());
  history.replaceState(null, "", url);
  connect(user.id);
}

// ---------------------------------------------------------------------------------- live data
function connect(userId) {
  if (state.source) state.source.close();
  state.messages.clear();
  state.unread.clear();
  state.dismissed.clear();
  state.me = userId;
  state.pane = null;
  renderMessages(true);
  const source = new EventSource(`/api/events?user=${encodeURIComponent(userId || "")}`);
  state.source = source;
  source.addEventListener("world", (event) => {
    const world = JSON.parse(event.data);
    state.world = world;
    state.me = world.me.id;
    if (!state.pane) state.pane = world.channels[0].id;
    renderSidebar();
    renderHeader();
  });
  source.addEventListener("messages", (event) => {
    const data = JSON.parse(event.data);
    let touched = false;
    for (const message of data.messages) {
      const fresh = !state.messages.has(message.id);
      state.messages.set(message.id, message);
      if (message.channel_id === state.pane) touched = true;
      else if (fresh && state.world) {
        state.unread.set(message.channel_id, (state.unread.get(message.channel_id) || 0) + 1);
      }
    }
    for (const id of data.gone) {
      const old = state.messages.get(id);
      state.messages.delete(id);
      if (old && old.channel_id === state.pane) touched = true;
    }
    if (touched) renderMessages(false);
    renderSidebar();
  });
  source.addEventListener("problems", (event) => {
    state.problems.push(...JSON.parse(event.data).problems);
    renderProblems();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) toast("Lost the playground — is it still running?", true);
  };
}

async function start() {
  // Who am I: ?as=name (or id) picks the local user, else the first one.
  const response = await fetch("/api/users");
  const users = await response.json();
  const wanted = wantedUser();
  const me = users.find((u) => u.name.toLowerCase() === wanted || u.id === wanted) || users[0];
  connect(me.id);
}

// ---------------------------------------------------------------------------------- sidebar
function renderSidebar() {
  const world = state.world;
  if (!world) return;
  $("guild-name").textContent = world.guild;
  const list = $("channel-list");
  list.replaceChildren();
  const parents = world.channels.filter((c) => !c.thread);
  for (const channel of parents) {
    list.append(channelLink(channel));
    for (const thread of world.channels.filter((c) => c.parent_id === channel.id)) {
      list.append(channelLink(thread));
    }
  }
  const dms = $("dm-list");
  dms.replaceChildren();
  if (world.me.dm) {
    const link = el("div", "dm-link");
    link.dataset.channelId = world.me.dm;
    link.setAttribute("role", "listitem");
    link.append(avatar(world.bot.id, world.bot.name, true, "small"), el("span", "", world.bot.name));
    addBadge(link, world.me.dm);
    if (state.pane === world.me.dm) link.classList.add("active");
    link.onclick = () => openPane(world.me.dm);
    dms.append(link);
  }
  const users = $("user-list");
  users.replaceChildren();
  for (const user of world.users) {
    const button = el("button", "user-switch");
    button.type = "button";
    button.dataset.user = user.name;
    button.title = `Be ${user.name} (or open ?as=${user.name.toLowerCase()} in another window)`;
    button.append(avatar(user.id, user.name, false, "small"), el("span", "", user.name));
    if (user.id === state.me) button.classList.add("active");
    button.onclick = () => { if (user.id !== state.me) switchTo(user); };
    users.append(button);
  }
  document.title = `${nameOf(state.me)} · cafebot playground`;
}

function channelLink(channel) {
  const link = el("div", "channel" + (channel.thread ? " thread" : ""));
  link.setAttribute("role", "listitem");
  link.dataset.channelId = channel.id;
  link.dataset.name = channel.name;
  link.append(el("span", "hash", channel.thread ? "🧵" : "#"), el("span", "", channel.name));
  addBadge(link, channel.id);
  if (channel.id === state.pane) link.classList.add("active");
  link.onclick = () => openPane(channel.id);
  return link;
}

function addBadge(node, channelId) {
  const count = state.unread.get(channelId);
  if (count && channelId !== state.pane) node.append(el("span", "badge", String(count)));
}

function openPane(id) {
  setMenu(false);
  state.jumped = null;
  state.pane = id;
  state.unread.delete(id);
  closeCommand();
  renderSidebar();
  renderHeader();
  renderMessages(true);
}

function currentChannel() {
  return state.world ? state.world.channels.find((c) => c.id === state.pane) : null;
}

function renderHeader() {
  if (!state.world) return;
  const channel = currentChannel();
  const isDm = state.pane === state.world.me.dm;
  $("pane-title").textContent = isDm ? `@${state.world.bot.name}` : `${channel && channel.thread ? "🧵" : "#"} ${channel ? channel.name : ""}`;
  $("pane-topic").textContent = isDm
    ? `Your direct messages with ${state.world.bot.name}: hands and ballots arrive here, for ${nameOf(state.me)} only.`
    : "Type / for the /game commands — /game new starts a lobby.";
  $("new-thread").hidden = isDm || !channel || channel.thread;
  $("composer-input").placeholder = isDm ? `Message @${state.world.bot.name}` : `Message #${channel ? channel.name : ""} — type / for commands`;
}

// ---------------------------------------------------------------------------------- messages
function paneMessages() {
  const out = [];
  for (const message of state.messages.values()) {
    if (message.channel_id === state.pane && !state.dismissed.has(message.id)) out.push(message);
  }
  out.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return out;
}

const rendered = new Map(); // message id -> {json, node}

function renderMessages(reset) {
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  if (reset) { rendered.clear(); box.replaceChildren(); }
  const messages = paneMessages();
  if (!messages.length) {
    box.replaceChildren(el("div", "empty-pane", state.world && state.pane === state.world.me.dm
      ? "No direct messages yet. Join a game: your private hand arrives here."
      : "Nothing here yet. Type /game new to open a lobby."));
    rendered.clear();
    return;
  }
  const empty = box.querySelector(".empty-pane");
  if (empty) empty.remove();
  const keep = new Set(messages.map((m) => m.id));
  for (const [id, entry] of rendered) {
    if (!keep.has(id)) { entry.node.remove(); rendered.delete(id); }
  }
  let previous = null;
  let anchor = null;
  for (const message of messages) {
    const grouped = isGrouped(previous, message);
    const key = JSON.stringify(message) + grouped;
    let entry = rendered.get(message.id);
    if (!entry || entry.key !== key) {
      const node = renderMessage(message, grouped);
      if (entry) entry.node.replaceWith(node);
      entry = { key, node };
      rendered.set(message.id, entry);
    }
    const expected = anchor ? anchor.nextSibling : box.firstChild;
    if (expected !== entry.node) box.insertBefore(entry.node, expected);
    anchor = entry.node;
    previous = message;
  }
  if (reset || atBottom) box.scrollTop = box.scrollHeight;
}

function isGrouped(previous, message) {
  if (!previous || previous.author_id !== message.author_id || message.interaction) return false;
  if (previous.ephemeral !== message.ephemeral) return false;
  return Date.parse(message.timestamp) - Date.parse(previous.timestamp) < 5 * 60 * 1000;
}

function nameOf(id) {
  return (state.world && state.world.names[id]) || "someone";
}

function colourOf(id) {
  let hash = 0;
  for (const ch of String(id)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hues = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#9b59b6", "#1abc9c"];
  return hues[hash % hues.length];
}

function avatar(id, name, bot, size) {
  const node = el("div", "avatar" + (bot ? " bot" : "") + (size ? " " + size : ""), bot ? "☕" : (name || "?")[0].toUpperCase());
  if (!bot) node.style.background = colourOf(id);
  return node;
}

function renderMessage(message, grouped) {
  const world = state.world;
  const isBot = world && message.author_id === world.bot.id;
  const node = el("div", "message" + (grouped ? " grouped" : "") + (message.ephemeral ? " ephemeral" : ""));
  node.dataset.messageId = message.id;
  node.dataset.version = String(message.version);
  node.dataset.author = nameOf(message.author_id);
  if (message.id === state.jumped) node.classList.add("jumped");
  node.append(avatar(message.author_id, nameOf(message.author_id), isBot));
  const body = el("div", "body");
  if (message.interaction && message.interaction.name) {
    const line = el("div", "reply-line");
    line.append(el("b", "", nameOf(message.interaction.user_id)), document.createTextNode(" used "), el("span", "cmd", "/" + message.interaction.name));
    body.append(line);
  }
  if (!grouped) {
    const head = el("div", "head");
    head.append(el("span", "author", nameOf(message.author_id)));
    if (isBot) head.append(el("span", "app-tag", "APP"));
    head.append(el("span", "time", formatTime(message.timestamp)));
    body.append(head);
  }
  if (message.loading) body.append(el("div", "thinking", `${nameOf(message.author_id)} is thinking…`));
  if (message.content) {
    const content = el("div", "content");
    content.append(markdown(message.content));
    if (message.edited) content.append(el("span", "edited", "(edited)"));
    body.append(content);
    if (mentionsMe(message.content)) node.classList.add("mentions-me");
  }
  for (const embed of message.embeds || []) body.append(renderEmbed(embed));
  const inEmbeds = new Set();
  for (const embed of message.embeds || []) {
    for (const key of ["image", "thumbnail"]) if (embed[key] && embed[key].url) inEmbeds.add(embed[key].url);
  }
  const inComponents = JSON.stringify(message.components || []);
  for (const attachment of message.attachments || []) {
    if (inEmbeds.has(attachment.url) || inComponents.includes(attachment.url)) continue;
    if ((attachment.content_type || "").startsWith("image/") || /\.(png|jpe?g|gif|webp)$/i.test(attachment.filename)) {
      const img = el("img", "attachment-image");
      img.src = attachment.url;
      img.alt = attachment.filename;
      body.append(img);
    } else {
      const link = el("a", "", "📎 " + attachment.filename);
      link.href = attachment.url;
      body.append(link);
    }
  }
  if ((message.components || []).length) body.append(renderComponents(message.components, message));
  if (message.ephemeral) {
    const note = el("div", "ephemeral-note");
    note.append(document.createTextNode("👁 Only you can see this · "));
    const dismiss = el("a", "", "Dismiss message");
    dismiss.onclick = () => { state.dismissed.add(message.id); renderMessages(false); };
    note.append(dismiss);
    body.append(note);
  }
  node.append(body);
  return node;
}

function mentionsMe(text) {
  return state.me && text.includes(`<@${state.me}>`);
}

function formatTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return "Today at " + date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// ---------------------------------------------------------------------------------- markdown
function markdown(text) {
  const out = document.createDocumentFragment();
  const blocks = String(text).split(/```/);
  blocks.forEach((block, i) => {
    if (i % 2 === 1) {
      out.append(el("pre", "", block.replace(/^\w*\n/, "")));
      return;
    }
    const lines = block.split("\n");
    lines.forEach((line, j) => {
      let cls = null;
      let rest = line;
      const heading = /^(#{1,3}) (.*)$/.exec(line);
      if (heading) { cls = "md-h" + heading[1].length; rest = heading[2]; }
      else if (line.startsWith("-# ")) { cls = "md-sub"; rest = line.slice(3); }
      else if (line.startsWith("> ")) { cls = "md-quote"; rest = line.slice(2); }
      else if (/^\s*[-*] /.test(line)) { rest = line.replace(/^(\s*)[-*] /, "$1• "); }
      const span = el("span", cls || "");
      span.innerHTML = inline(rest);
      out.append(span);
      if (j < lines.length - 1 && !cls) out.append(document.createTextNode("\n"));
    });
  });
  for (const spoiler of out.querySelectorAll ? out.querySelectorAll(".spoiler") : []) {
    spoiler.onclick = () => spoiler.classList.add("shown");
  }
  return out;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function inline(raw) {
  const codes = [];
  let text = raw.replace(/`([^`]+)`/g, (_, code) => { codes.push(code); return `\u0000${codes.length - 1}\u0000`; });
  text = escapeHtml(text);
  text = text
    .replace(/&lt;@!?(\d+)&gt;/g, (_, id) => `<span class="mention">@${escapeHtml(nameOf(id))}</span>`)
    .replace(/&lt;#(\d+)&gt;/g, (_, id) => `<span class="mention">#${escapeHtml(channelName(id))}</span>`)
    .replace(/&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;/g, (_, unix, style) => timestamp(Number(unix), style || "f"))
    .replace(/&lt;a?:(\w+):\d+&gt;/g, ":$1:")
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)|(https?:\/\/[^\s<>()]+[^\s<>().,!?:;'"])/g,
      (_, label, url, bare) => link(url || bare, label || bare))
    .replace(/\*\*\*(.+?)\*\*\*/g, "<b><i>$1</i></b>")
    .replace(/\*\*(.+?)\*\*/g, "<b>$1</b>")
    .replace(/__(.+?)__/g, "<u>$1</u>")
    .replace(/\*(?!\s)(.+?)\*/g, "<i>$1</i>")
    .replace(/(^|[\s(])_(?!\s)(.+?)_(?=$|[\s).,!?])/g, "$1<i>$2</i>")
    .replace(/~~(.+?)~~/g, "<s>$1</s>")
    .replace(/\|\|(.+?)\|\|/g, '<span class="spoiler">$1</span>');
  return text.replace(/\u0000(\d+)\u0000/g, (_, i) => `<code>${escapeHtml(codes[Number(i)])}</code>`);
}

// A Discord message link (https://discord.com/channels/<guild or @me>/<channel>[/<message>]): in
// the page it opens that channel, thread or DM and shows the message, as Discord's client does.
const JUMP = /^https:\/\/(?:\w+\.)?discord(?:app)?\.com\/channels\/(?:\d+|@me)\/(\d+)(?:\/(\d+))?\/?$/;

function link(url, label) {
  // (url and label are escaped already: they come from escapeHtml'd text)
  const jump = JUMP.exec(url);
  if (jump) {
    const message = jump[2] ? ` data-message="${jump[2]}"` : "";
    return `<a href="${url}" class="jump" data-channel="${jump[1]}"${message}>${label}</a>`;
  }
  return `<a href="${url}" target="_blank" rel="noopener">${label}</a>`;
}

function jumpTo(channelId, messageId) {
  const world = state.world;
  const known = world && (world.channels.some((c) => c.id === channelId) || channelId === world.me.dm);
  if (!known) { toast("That link leads to a channel this playground does not have.", true); return; }
  if (channelId !== state.pane) openPane(channelId);
  if (!messageId) return;
  state.jumped = messageId;
  const node = document.querySelector(`#messages .message[data-message-id="${messageId}"]`);
  if (!node) { toast("That message was deleted, or you cannot see it.", true); return; }
  for (const old of document.querySelectorAll(".message.jumped")) old.classList.remove("jumped");
  node.classList.add("jumped");
  node.scrollIntoView({ block: "center" });
}

document.addEventListener("click", (event) => {
  const anchor = event.target.closest("a.jump");
  if (!anchor) return;
  event.preventDefault();
  jumpTo(anchor.dataset.channel, anchor.dataset.message || null);
});

function channelName(id) {
  if (!state.world) return "channel";
  const channel = state.world.channels.find((c) => c.id === id);
  return channel ? channel.name : "unknown-channel";
}

function timestamp(unix, style) {
  const date = new Date(unix * 1000);
  let text;
  if (style === "R") {
    const seconds = Math.round(unix - Date.now() / 1000);
    const units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
    const [unit, size] = units.find(([, s]) => Math.abs(seconds) >= s) || ["second", 1];
    text = new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(Math.round(seconds / size), unit);
  } else if (style === "t" || style === "T") {
    text = date.toLocaleTimeString();
  } else if (style === "d" || style === "D") {
    text = date.toLocaleDateString();
  } else {
    text = date.toLocaleString();
  }
  return `<span class="timestamp" data-unix="${unix}" data-style="${style}">${escapeHtml(text)}</span>`;
}

setInterval(() => {
  for (const node of document.querySelectorAll('.timestamp[data-style="R"]')) {
    const wrapper = document.createElement("span");
    wrapper.innerHTML = timestamp(Number(node.dataset.unix), "R");
    node.textContent = wrapper.firstChild.textContent;
  }
}, 10000);

// ---------------------------------------------------------------------------------- embeds
function hexColour(value) {
  return "#" + Number(value).toString(16).padStart(6, "0");
}

function renderEmbed(embed) {
  const node = el("div", "embed");
  if (embed.color !== undefined && embed.color !== null) node.style.borderLeftColor = hexColour(embed.color);
  if (embed.thumbnail && embed.thumbnail.url) {
    node.classList.add("with-thumb");
    const thumb = el("div", "embed-thumb");
    const img = el("img");
    img.src = embed.thumbnail.url;
    thumb.append(img);
    node.append(thumb);
  }
  if (embed.author && embed.author.name) node.append(el("div", "embed-author", embed.author.name));
  if (embed.title) {
    const title = el("div", "embed-title");
    title.innerHTML = inline(embed.title);
    node.append(title);
  }
  if (embed.description) {
    const description = el("div", "embed-description");
    description.append(markdown(embed.description));
    node.append(description);
  }
  if ((embed.fields || []).length) {
    const fields = el("div", "embed-fields");
    for (const field of embed.fields) {
      const box = el("div", "embed-field" + (field.inline ? " inline" : ""));
      const name = el("div", "field-name");
      name.innerHTML = inline(field.name);
      const value = el("div", "field-value");
      value.append(markdown(field.value));
      box.append(name, value);
      fields.append(box);
    }
    node.append(fields);
  }
  if (embed.image && embed.image.url) {
    const image = el("div", "embed-image");
    const img = el("img");
    img.src = embed.image.url;
    img.alt = "picture";
    image.append(img);
    node.append(image);
  }
  if (embed.footer && embed.footer.text) node.append(el("div", "embed-footer", embed.footer.text));
  return node;
}

// ---------------------------------------------------------------------------------- components
const BUTTON_STYLES = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "primary" };

function emojiText(emoji) {
  if (!emoji) return "";
  return emoji.id ? `:${emoji.name}:` : emoji.name || "";
}

function renderComponents(components, message) {
  const box = el("div", "components");
  for (const component of components) box.append(renderComponent(component, message));
  return box;
}

function renderComponent(c, message) {
  switch (c.type) {
    case 1: {
      const row = el("div", "action-row");
      for (const child of c.components || []) row.append(renderComponent(child, message));
      return row;
    }
    case 2: return renderButton(c, message);
    case 3: case 5: case 6: case 7: case 8: return renderSelect(c, message);
    case 9: {
      const section = el("div", "v2-section");
      const inner = el("div", "v2-section-body");
      for (const child of c.components || []) inner.append(renderComponent(child, message));
      section.append(inner);
      if (c.accessory) section.append(renderComponent(c.accessory, message));
      return section;
    }
    case 10: {
      const text = el("div", "v2-text");
      text.append(markdown(c.content || ""));
      return text;
    }
    case 11: {
      const thumb = el("div", "v2-thumb");
      const img = el("img");
      img.src = c.media && c.media.url;
      img.alt = c.description || "";
      thumb.append(img);
      return thumb;
    }
    case 12: {
      const gallery = el("div", "v2-gallery");
      for (const item of c.items || []) {
        const img = el("img");
        img.src = item.media && item.media.url;
        img.alt = item.description || "";
        gallery.append(img);
      }
      return gallery;
    }
    case 13: {
      const link = el("a", "", "📎 " + ((c.file && c.file.url) || "file").split("/").pop().split("?")[0]);
      link.href = c.file && c.file.url;
      return link;
    }
    case 14: return el("hr", "v2-separator" + (c.divider === false ? " invisible" : ""));
    case 17: {
      const container = el("div", "v2-container");
      if (c.accent_color !== undefined && c.accent_color !== null) container.style.borderLeftColor = hexColour(c.accent_color);
      for (const child of c.components || []) container.append(renderComponent(child, message));
      return container;
    }
    default: return el("div", "", `(component type ${c.type})`);
  }
}

function renderButton(c, message) {
  const style = BUTTON_STYLES[c.style] || "secondary";
  const button = el("button", "component-button " + style);
  button.type = "button";
  if (c.custom_id) button.dataset.customId = c.custom_id;
  if (c.emoji) button.append(el("span", "emoji", emojiText(c.emoji)));
  if (c.label) button.append(el("span", "label", c.label));
  if (style === "link") button.append(el("span", "", "↗"));
  button.disabled = Boolean(c.disabled);
  button.onclick = async () => {
    if (style === "link") {
      const jump = JUMP.exec(c.url || "");
      if (jump) jumpTo(jump[1], jump[2] || null); else window.open(c.url, "_blank", "noopener");
      return;
    }
    button.classList.add("pending");
    button.disabled = true;
    const ok = await act("/api/click", { message: message.id, custom_id: c.custom_id });
    if (!ok && button.isConnected) { button.classList.remove("pending"); button.disabled = Boolean(c.disabled); }
  };
  return button;
}

function renderSelect(c, message) {
  const wrap = el("div", "select" + (c.disabled ? " disabled" : ""));
  wrap.dataset.customId = c.custom_id;
  const options = c.options || [];
  const chosen = options.filter((o) => o.default);
  const box = el("div", "select-box" + (chosen.length ? " chosen" : ""));
  if (chosen.length) {
    for (const option of chosen) {
      if (option.emoji) box.append(el("span", "emoji", emojiText(option.emoji)));
      box.append(el("span", "", option.label + (chosen.length > 1 ? ";" : "")));
    }
  } else {
    box.append(el("span", "", c.placeholder || (c.type === 3 ? "Make a selection" : "Select…")));
  }
  wrap.append(box);
  if (c.type !== 3) { wrap.classList.add("disabled"); return wrap; } // user/role/channel selects: not used by the bot
  const multi = (c.max_values || 1) > 1;
  const picked = new Set(chosen.map((o) => o.value));
  box.onclick = () => {
    if (c.disabled || wrap.classList.contains("pending")) return;
    const open = wrap.querySelector(".select-menu");
    if (open) { open.remove(); return; }
    closeMenus();
    const menu = el("div", "select-menu");
    for (const option of options) {
      const item = el("div", "select-option" + (option.default ? " default" : ""));
      item.dataset.value = option.value;
      if (multi) {
        const tick = el("input");
        tick.type = "checkbox";
        tick.checked = picked.has(option.value);
        item.append(tick);
      }
      if (option.emoji) item.append(el("span", "emoji", emojiText(option.emoji)));
      const text = el("div");
      text.append(el("div", "label", option.label));
      if (option.description) text.append(el("div", "description", option.description));
      item.append(text);
      item.onclick = async (event) => {
        event.stopPropagation();
        if (multi) {
          if (picked.has(option.value)) picked.delete(option.value); else picked.add(option.value);
          item.querySelector("input").checked = picked.has(option.value);
          return;
        }
        menu.remove();
        await sendSelect(wrap, c, message, [option.value]);
      };
      menu.append(item);
    }
    if (multi) {
      const apply = el("button", "component-button primary select-apply", "Apply");
      apply.onclick = async (event) => {
        event.stopPropagation();
        const values = [...picked];
        if (values.length < (c.min_values ?? 1) || values.length > c.max_values) {
          toast(`Pick ${c.min_values ?? 1} to ${c.max_values} options.`, true);
          return;
        }
        menu.remove();
        await sendSelect(wrap, c, message, values);
      };
      menu.append(apply);
    }
    const rect = wrap.getBoundingClientRect();
    if (rect.bottom > window.innerHeight * 0.6) menu.classList.add("up");
    wrap.append(menu);
  };
  return wrap;
}

async function sendSelect(wrap, c, message, values) {
  wrap.classList.add("pending");
  const ok = await act("/api/select", { message: message.id, custom_id: c.custom_id, values });
  if (!ok && wrap.isConnected) wrap.classList.remove("pending");
}

function closeMenus() {
  for (const menu of document.querySelectorAll(".select-menu")) menu.remove();
}

document.addEventListener("click", (event) => {
  if (!event.target.closest(".select")) closeMenus();
  if (!event.target.closest(".command-option")) for (const list of document.querySelectorAll(".autocomplete-list")) list.remove();
});

// ---------------------------------------------------------------------------------- acting
async function act(path, body) {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user: state.me, ...body }),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      toast(data.error || `The playground answered ${response.status}.`, true);
      return null;
    }
    return data;
  } catch (error) {
    toast(`Could not reach the playground: ${error}`, true);
    return null;
  }
}

function toast(text, isError) {
  const node = el("div", "toast" + (isError ? " error" : ""), text);
  $("toasts").append(node);
  setTimeout(() => node.remove(), isError ? 10000 : 4000);
}

function renderProblems() {
  const box = $("problems");
  if (!state.problems.length) { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren();
  const close = el("button", "", "Hide");
  close.onclick = () => { state.problems = []; renderProblems(); };
  box.append(close, el("div", "problem-title", `⛔ Discord would reject what the bot sent (${state.problems.length}):`));
  for (const problem of state.problems.slice(-20)) box.append(el("div", "problem", problem));
}

// ---------------------------------------------------------------------------------- slash commands
function commandEntries() {
  const out = [];
  for (const command of (state.world && state.world.commands) || []) {
    if ((command.type || 1) !== 1) continue;
    const subs = (command.options || []).filter((o) => o.type === 1 || o.type === 2);
    if (!subs.length) { out.push({ path: command.name, decl: command }); continue; }
    for (const sub of subs) {
      if (sub.type === 1) out.push({ path: `${command.name} ${sub.name}`, decl: sub });
      else for (const leaf of sub.options || []) out.push({ path: `${command.name} ${sub.name} ${leaf.name}`, decl: leaf });
    }
  }
  return out;
}

let suggestionIndex = 0;

function renderSuggestions() {
  const input = $("composer-input");
  const box = $("command-suggestions");
  const text = input.value;
  if (!text.startsWith("/") || state.command) { box.hidden = true; return; }
  const wanted = text.slice(1).trim().toLowerCase();
  const entries = commandEntries().filter((e) => e.path.startsWith(wanted) || e.path.includes(wanted));
  box.replaceChildren();
  if (!entries.length) { box.hidden = true; return; }
  suggestionIndex = Math.min(suggestionIndex, entries.length - 1);
  entries.forEach((entry, i) => {
    const item = el("div", "command-suggestion" + (i === suggestionIndex ? " active" : ""));
    item.dataset.command = entry.path;
    item.append(el("span", "cmd", "/" + entry.path), el("span", "desc", entry.decl.description || ""));
    item.onmousedown = (event) => { event.preventDefault(); startCommand(entry); };
    box.append(item);
  });
  box.hidden = false;
}

function startCommand(entry) {
  state.command = entry;
  $("command-suggestions").hidden = true;
  const input = $("composer-input");
  input.value = "";
  input.placeholder = "Fill in the options, then press Enter or Send";
  const name = $("command-name");
  name.replaceChildren(el("span", "", "/" + entry.path));
  const cancel = el("span", "cancel", "✕ cancel");
  cancel.onclick = closeCommand;
  name.append(cancel);
  const box = $("command-options");
  box.replaceChildren();
  for (const option of entry.decl.options || []) box.append(optionField(option));
  $("command-form").hidden = false;
  const first = box.querySelector("select, input");
  if (first) first.focus(); else input.focus();
}

function closeCommand() {
  state.command = null;
  $("command-form").hidden = true;
  $("command-options").replaceChildren();
  $("composer-input").value = "";
  renderHeader();
  renderSuggestions();
}

function optionField(option) {
  const field = el("div", "command-option");
  field.dataset.option = option.name;
  const label = el("label", "", option.name);
  if (option.required) label.append(el("span", "required", " *"));
  label.title = option.description || "";
  field.append(label);
  let input;
  if (option.choices && option.choices.length) {
    input = el("select");
    input.append(new Option(option.required ? "— choose —" : "(none)", ""));
    for (const choice of option.choices) input.append(new Option(choice.name, JSON.stringify(choice.value)));
  } else if (option.type === 5) {
    input = el("select");
    input.append(new Option("(none)", ""), new Option("True", "true"), new Option("False", "false"));
  } else {
    input = el("input");
    input.type = option.type === 4 || option.type === 10 ? "number" : "text";
    if (option.min_value !== undefined) input.min = option.min_value;
    if (option.max_value !== undefined) input.max = option.max_value;
    input.placeholder = option.description || option.name;
    if (option.autocomplete) {
      const suggest = debounce(() => autocomplete(field, option, input), 150);
      input.addEventListener("input", suggest);
      input.addEventListener("focus", suggest);
    }
  }
  input.dataset.kind = option.choices && option.choices.length ? "choice" : String(option.type);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); sendCommand(); } });
  field.append(input);
  return field;
}

function debounce(fn, ms) {
  let timer = null;
  return () => { clearTimeout(timer); timer = setTimeout(fn, ms); };
}

function optionValues(partial) {
  const values = {};
  for (const field of document.querySelectorAll("#command-options .command-option")) {
    const input = field.querySelector("select, input");
    const raw = input.value;
    if (raw === "") continue;
    const kind = input.dataset.kind;
    if (kind === "choice") values[field.dataset.option] = JSON.parse(raw);
    else if (kind === "4") values[field.dataset.option] = partial ? raw : parseInt(raw, 10);
    else if (kind === "10") values[field.dataset.option] = partial ? raw : Number(raw);
    else if (kind === "5") values[field.dataset.option] = raw === "true";
    else values[field.dataset.option] = raw;
  }
  return values;
}

async function autocomplete(field, option, input) {
  const options = optionValues(true);
  options[option.name] = input.value;
  const data = await act("/api/autocomplete", {
    channel: state.pane, command: state.command.path, options, focused: option.name,
  });
  for (const list of field.querySelectorAll(".autocomplete-list")) list.remove();
  if (!data || !data.choices.length || document.activeElement !== input) return;
  const list = el("div", "autocomplete-list");
  for (const choice of data.choices) {
    const item = el("div", "autocomplete-choice", choice.name);
    item.dataset.value = String(choice.value);
    item.onmousedown = (event) => { event.preventDefault(); input.value = String(choice.value); list.remove(); };
    list.append(item);
  }
  field.append(list);
}

async function sendCommand() {
  const entry = state.command;
  if (!entry) return;
  const missing = (entry.decl.options || []).filter((o) => o.required && optionValues(false)[o.name] === undefined);
  if (missing.length) { toast(`/${entry.path} needs: ${missing.map((o) => o.name).join(", ")}`, true); return; }
  const send = $("composer-send");
  send.disabled = true;
  const ok = await act("/api/slash", { channel: state.pane, command: entry.path, options: optionValues(false) });
  send.disabled = false;
  if (ok) closeCommand();
}

async function sendText() {
  const input = $("composer-input");
  const text = input.value.trim();
  if (!text) return;
  if (text.startsWith("/")) {
    const entries = commandEntries();
    const wanted = text.slice(1).trim().toLowerCase();
    const exact = entries.find((e) => e.path === wanted) || entries.filter((e) => e.path.startsWith(wanted))[suggestionIndex];
    if (exact) startCommand(exact); else toast(`There is no command /${wanted}.`, true);
    return;
  }
  const ok = await act("/api/say", { channel: state.pane, content: text });
  if (ok) input.value = "";
}

$("composer-input").addEventListener("input", () => { suggestionIndex = 0; renderSuggestions(); });
$("composer-input").addEventListener("keydown", (event) => {
  const box = $("command-suggestions");
  if (!box.hidden && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
    event.preventDefault();
    suggestionIndex = Math.max(0, suggestionIndex + (event.key === "ArrowDown" ? 1 : -1));
    renderSuggestions();
    return;
  }
  if (event.key === "Tab" && !box.hidden) {
    event.preventDefault();
    const active = box.querySelector(".command-suggestion.active");
    if (active) startCommand(commandEntries().find((e) => e.path === active.dataset.command));
    return;
  }
  if (event.key === "Escape") { closeCommand(); return; }
  if (event.key === "Enter") {
    event.preventDefault();
    if (state.command) sendCommand(); else sendText();
  }
});
$("composer-send").onclick = () => (state.command ? sendCommand() : sendText());
$("new-thread").onclick = async () => {
  const name = prompt("Name of the new thread", "another game");
  if (!name) return;
  const data = await act("/api/thread", { channel: state.pane, name });
  if (data) openPane(data.id);
};

// ---------------------------------------------------------------------------------- pictures
// A click on a picture in a message shows it full size over the page; a click or Esc closes it.
function openPicture(img) {
  const shown = $("picture-full");
  shown.src = img.src;
  shown.alt = img.alt;
  $("picture-overlay").hidden = false;
}

function closePicture() {
  $("picture-overlay").hidden = true;
  $("picture-full").removeAttribute("src");
}

$("messages").addEventListener("click", (event) => {
  const img = event.target.closest("img");
  if (img && img.src) openPicture(img);
});
$("picture-overlay").addEventListener("click", closePicture);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("picture-overlay").hidden) closePicture();
});

// ---------------------------------------------------------------------------------- phones
// Below 700 px the sidebar is a drawer behind the ☰ button (style.css): opening a channel or the
// DMs, or a tap beside the drawer, closes it again.
function setMenu(open) {
  document.body.classList.toggle("menu-open", open);
  $("menu-backdrop").hidden = !open;
  $("menu-button").setAttribute("aria-expanded", String(open));
}
$("menu-button").addEventListener("click", () => setMenu(!document.body.classList.contains("menu-open")));
$("menu-backdrop").addEventListener("click", () => setMenu(false));

start();
