// The page's only script: citations open their passage beside the text, some forms ask first,
// a question's answer streams in with the agent's steps, and dropped files are uploaded and
// imported with progress. No framework, nothing fetched from
// elsewhere; posts carry the session's CSRF token from the page's <meta>.
"use strict";

(function () {
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const panel = document.getElementById("passage");
  const problem = (body) => (body && body.error ? body.error + (body.hint ? " (" + body.hint + ")" : "") : "it failed");

  // ------------------------------------------------------------------ citations
  async function openPassage(link) {
    panel.hidden = false;
    panel.setAttribute("aria-busy", "true");
    panel.textContent = "Reading " + (link.dataset.locator || "") + "…";
    const url = new URL(link.getAttribute("href"), location.href);
    url.searchParams.set("part", "1");
    const response = await fetch(url, {credentials: "same-origin"});
    if (response.redirected && new URL(response.url).pathname === "/login") {
      location.href = "/login?next=" + encodeURIComponent(location.pathname + location.search);
      return;
    }
    panel.innerHTML = await response.text();  // rendered by the server, everything escaped
    panel.removeAttribute("aria-busy");
    document.querySelectorAll("a.cite.open").forEach((a) => a.classList.remove("open"));
    link.classList.add("open");
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest("a.cite");
    if (link && panel && !(event.metaKey || event.ctrlKey || event.shiftKey || event.button)) {
      event.preventDefault();
      openPassage(link);
      return;
    }
    if (panel && event.target.closest("#passage button.close")) {
      panel.hidden = true;
      document.querySelectorAll("a.cite.open").forEach((a) => a.classList.remove("open"));
    }
  });

  // ------------------------------------------------------------------ forms that ask first (undo)
  document.addEventListener("submit", (event) => {
    const question = event.target.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // ------------------------------------------------------------------ ask: the answer as it is found
  // server-sent events over a POST (EventSource can only GET, and a post must carry the CSRF token)
  async function* events(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, {stream: true});
      let end;
      while ((end = buffered.indexOf("\n\n")) !== -1) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let name = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) name = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        yield {name, data: data ? JSON.parse(data) : {}};
      }
    }
  }

  async function ask(form) {
    const question = form.querySelector("#question").value.trim();
    if (!question) return;
    const [asked, steps, draft, answer, state] = ["asked", "ask-steps", "ask-draft", "ask-answer", "ask-state"]
      .map((id) => document.getElementById(id));
    const button = form.querySelector("button");
    asked.hidden = false; steps.textContent = ""; draft.textContent = ""; answer.textContent = "";
    asked.dataset.state = "asking"; state.textContent = "Thinking…"; button.disabled = true;
    try {
      const response = await fetch("/ask", {method: "POST", credentials: "same-origin",
        headers: {"X-CSRF-Token": csrf(), "Accept": "text/event-stream"}, body: new URLSearchParams({question})});
      if (!response.ok || !(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
        let body = null;
        try { body = await response.json(); } catch (e) { /* not JSON: said below */ }
        throw new Error(problem(body));
      }
      for await (const {name, data} of events(response)) {
        if (name === "step") {
          const item = document.createElement("li");
          item.textContent = data.words;
          steps.appendChild(item);
          state.textContent = data.words;
        } else if (name === "reply") {
          draft.textContent = "";
        } else if (name === "text") {
          draft.textContent += data.text;
          state.textContent = "Writing…";
        } else if (name === "answer") {
          draft.textContent = "";
          answer.innerHTML = data.html;  // rendered by the server, everything escaped
          asked.dataset.state = "done"; state.textContent = "";
        } else if (name === "problem") {
          throw new Error(problem(data));
        }
      }
      if (asked.dataset.state !== "done") throw new Error("the answer broke off (the server's log says why)");
    } catch (error) {
      asked.dataset.state = "failed";
      state.textContent = "No answer: " + error.message;
    } finally {
      button.disabled = false;
    }
  }

  const askForm = document.getElementById("ask");
  if (askForm) {
    askForm.addEventListener("submit", (event) => { event.preventDefault(); ask(askForm); });
    askForm.querySelector("#question").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); ask(askForm); }
    });
  }

  // ------------------------------------------------------------------ imports
  const drop = document.getElementById("drop");
  if (!drop) return;
  const input = document.getElementById("files");
  const box = document.getElementById("import");
  const bar = document.getElementById("import-progress");
  const stage = document.getElementById("import-stage");
  const summary = document.getElementById("import-summary");
  const next = document.getElementById("import-next");
  const title = document.getElementById("import-title");

  const post = (url) => fetch(url, {method: "POST", headers: {"X-CSRF-Token": csrf()}, credentials: "same-origin"});

  function show(text, done, total) {
    stage.textContent = text;
    if (total) { bar.max = total; bar.value = done; } else { bar.removeAttribute("value"); }
  }

  function upload(jobId, file) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", "/imports/" + jobId + "/files?name=" + encodeURIComponent(file.name));
      xhr.setRequestHeader("X-CSRF-Token", csrf());
      xhr.setRequestHeader("Content-Type", "application/octet-stream");
      xhr.upload.onprogress = (e) => show("Uploading " + file.name + ": " + Math.round(100 * e.loaded / (e.total || 1)) + "%",
                                          e.loaded, e.total);
      xhr.onload = () => {
        let body = null;
        try { body = JSON.parse(xhr.responseText); } catch (e) { /* not JSON: said below */ }
        if (xhr.status < 300) resolve(body); else reject(new Error(problem(body)));
      };
      xhr.onerror = () => reject(new Error("the upload broke off (is the server still running?)"));
      xhr.send(file);
    });
  }

  async function follow(jobId) {
    for (;;) {
      const response = await fetch("/imports/" + jobId, {credentials: "same-origin"});
      const job = await response.json();
      if (!response.ok) throw new Error(problem(job));
      if (job.state === "done" || job.state === "failed") return job;
      if (job.state === "queued") show("Waiting for the import before it to finish…", 0, 0);
      else show(job.stage ? job.done + (job.total ? " of " + job.total : "") + " " + job.stage_words : "Starting…",
                job.done, job.total);
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  async function importFiles(files) {
    if (!files.length) return;
    box.hidden = false; summary.hidden = true; next.hidden = true;
    title.textContent = "Importing " + (files.length === 1 ? files[0].name : files.length + " files");
    try {
      const created = await post("/imports");
      const job = await created.json();
      if (!created.ok) throw new Error(problem(job));
      for (const file of files) await upload(job.id, file);
      const started = await post("/imports/" + job.id + "/start");
      if (!started.ok) throw new Error(problem(await started.json()));
      const result = await follow(job.id);
      show(result.state === "done" ? "Done." : "Failed.", 1, 1);
      summary.textContent = result.summary;
      summary.hidden = false;
      next.hidden = result.state !== "done";
      box.dataset.state = result.state;
    } catch (error) {
      show("Not imported: " + error.message, 0, 1);
      box.dataset.state = "failed";
    }
  }

  const chosen = () => { importFiles(Array.from(input.files)); input.value = ""; };
  input.addEventListener("change", chosen);
  // this script is deferred: the box can be used before it runs (a busy or distant server sends it
  // late), and that choice's change event had no listener yet, so nothing was imported and nothing said
  if (input.files.length) chosen();
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    importFiles(Array.from(e.dataTransfer.files));
  });
})();
