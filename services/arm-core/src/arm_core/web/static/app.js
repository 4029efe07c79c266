// АРМ КА: uploads with progress, live file list, collapsible trial balances, local times.
(function () {
  "use strict";

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // Upload: several files at once, two in flight, each with its own progress bar.
  function initUpload(section) {
    var picker = section.querySelector("input[type=file]");
    var zone = section.querySelector(".drop");
    var list = section.querySelector(".upload-list");
    var consolidation = section.dataset.consolidation;
    var maxBytes = Number(section.dataset.maxBytes);
    var explanations = JSON.parse(section.dataset.explanations || "{}");
    var queue = [];
    var running = 0;

    function formatSize(bytes) {
      if (bytes < 1024) return bytes + " Б";
      if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1).replace(".", ",") + " КБ";
      return (bytes / 1024 / 1024).toFixed(1).replace(".", ",") + " МБ";
    }

    function item(file) {
      var li = document.createElement("li");
      li.className = "upload-item waiting";
      li.innerHTML =
        '<span class="u-name"></span><span class="u-size"></span>' +
        '<span class="u-bar"><span></span></span><span class="u-state">ждёт</span>' +
        '<div class="u-why" hidden></div>';
      li.querySelector(".u-name").textContent = file.name;
      li.querySelector(".u-size").textContent = formatSize(file.size);
      list.prepend(li);
      return li;
    }

    function reject(li, code, message, file) {
      var known = explanations[code] || { title: "Файл не принят", text: "", advice: "" };
      var detail = message || known.text;
      if (code === "EMPTY_FILE") {
        detail = known.text;
      } else if (code === "FILE_TOO_LARGE") {
        detail = "размер " + formatSize(file.size) + " при допустимых " + formatSize(maxBytes);
      }
      li.className = "upload-item rejected";
      li.dataset.code = code;
      li.querySelector(".u-state").textContent = "отклонён";
      var why = li.querySelector(".u-why");
      why.hidden = false;
      why.textContent = known.title + ": " + detail.replace(/\.$/, "") + "." + (known.advice ? " " + known.advice : "");
    }

    function send(file, li) {
      if (file.size > maxBytes) {
        reject(li, "FILE_TOO_LARGE", "", file);
        return Promise.resolve();
      }
      return new Promise(function (resolve) {
        var form = new FormData();
        // The consolidation goes before the file: the server streams the file as it comes.
        if (consolidation) form.append("consolidation_id", consolidation);
        form.append("file", file, file.name);
        var xhr = new XMLHttpRequest();
        xhr.open("POST", "/api/v1/files");
        if (csrfToken()) xhr.setRequestHeader("X-CSRF-Token", csrfToken());
        li.className = "upload-item sending";
        li.querySelector(".u-state").textContent = "0%";
        xhr.upload.onprogress = function (e) {
          if (!e.lengthComputable) return;
          var pct = Math.round((e.loaded / e.total) * 100);
          li.querySelector(".u-bar span").style.width = pct + "%";
          li.querySelector(".u-state").textContent = pct + "%";
        };
        xhr.onload = function () {
          if (xhr.status === 201) {
            li.className = "upload-item done";
            li.querySelector(".u-bar span").style.width = "100%";
            li.querySelector(".u-state").textContent = "загружен";
            var answer = {};
            try { answer = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
            var same = answer.same_bytes || [];
            if (same.length) {
              // Uploaded all the same: the analyst decides whether the copy is a mistake.
              li.classList.add("same-bytes");
              var why = li.querySelector(".u-why");
              why.hidden = false;
              why.textContent = "Точно такой же файл уже загружен: " +
                same.map(function (f) { return "«" + f.original_name + "»"; }).join(", ") + ".";
            }
            var rows = document.getElementById("file-rows");
            if (rows) htmx.trigger(rows, "refresh");
          } else {
            var error = {};
            try { error = JSON.parse(xhr.responseText).error || {}; } catch (e) { /* not JSON */ }
            reject(li, error.code || "HTTP_" + xhr.status, error.message || "", file);
          }
          resolve();
        };
        xhr.onerror = function () {
          reject(li, "NETWORK", "соединение с сервером прервано", file);
          resolve();
        };
        xhr.send(form);
      });
    }

    function pump() {
      while (running < 2 && queue.length) {
        var next = queue.shift();
        running += 1;
        send(next.file, next.li).then(function () { running -= 1; pump(); });
      }
    }

    function add(files) {
      for (var i = 0; i < files.length; i++) queue.push({ file: files[i], li: item(files[i]) });
      pump();
    }

    picker.addEventListener("change", function () { add(picker.files); picker.value = ""; });
    zone.addEventListener("dragover", function (e) { e.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
    zone.addEventListener("drop", function (e) {
      e.preventDefault();
      zone.classList.remove("over");
      if (e.dataTransfer && e.dataTransfer.files.length) add(e.dataTransfer.files);
    });
  }

  // Live statuses. Each fragment carries the cursor of the moment it was read; a change
  // that arrives while a fragment is on its way is logged, and the fragment, once in place,
  // re-reads itself if a later change concerns it. A file the list does not show yet makes
  // the list re-read itself, when the list would show it.
  var changes = [];

  function parseCursor(cursor) {
    var at = (cursor || "").lastIndexOf("-");
    return { epoch: cursor.slice(0, at), seq: Number(cursor.slice(at + 1)) };
  }

  function wantedIn(rows, status) {
    var wanted = rows.dataset.statuses;
    return !wanted || wanted.split(",").indexOf(status) >= 0;
  }

  function concerns(el, change) {
    var watch = el.dataset.watch || "";
    if (watch === "any") return true;
    if (watch.indexOf("file:") === 0) return change.id === watch.slice(5);
    if (watch.indexOf("consolidation:") === 0) return change.consolidation === watch.slice(14);
    if (watch === "list") return !document.getElementById("file-" + change.id) && wantedIn(el, change.status);
    return false;
  }

  function checkStale(el) {
    if (!el.dataset.cursor || !el.isConnected) return;
    var read = parseCursor(el.dataset.cursor);
    var stale = changes.some(function (change) {
      return change.epoch === read.epoch && change.seq > read.seq && concerns(el, change);
    });
    if (stale) htmx.trigger(el, "stale");
  }

  // A signed-in session's requests that change something carry its CSRF token.
  document.addEventListener("htmx:configRequest", function (e) {
    if (csrfToken() && e.detail.verb !== "get") e.detail.headers["X-CSRF-Token"] = csrfToken();
  });

  document.addEventListener("htmx:sseOpen", function (e) {
    var source = e.detail.source;
    if (source.armFiles) return;
    source.armFiles = true;
    source.addEventListener("file", function (message) {
      var data = JSON.parse(message.data);
      var at = parseCursor(message.lastEventId);
      changes.push({ epoch: at.epoch, seq: at.seq, id: data.id, status: data.status, consolidation: data.consolidation_id });
      if (changes.length > 2000) changes.splice(0, 1000);
      var rows = document.getElementById("file-rows");
      if (rows && !document.getElementById("file-" + data.id) && wantedIn(rows, data.status)) {
        htmx.trigger(rows, "refresh");
      }
    });
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (changes.length) document.querySelectorAll("[data-cursor]").forEach(checkStale);
  });

  // Trial balance hierarchy: a parent row hides or shows everything below it.
  function descendants(table, id) {
    var out = [];
    var stack = [String(id)];
    while (stack.length) {
      var parent = stack.pop();
      table.querySelectorAll('tr[data-parent="' + parent + '"]').forEach(function (tr) {
        out.push(tr);
        stack.push(tr.dataset.row);
      });
    }
    return out;
  }

  function setOpen(table, tr, open) {
    var button = tr.querySelector(".toggle");
    if (!button) return;
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? "▾" : "▸";
    descendants(table, tr.dataset.row).forEach(function (child) {
      child.hidden = !open;
      var inner = child.querySelector(".toggle");
      if (open && inner) { inner.setAttribute("aria-expanded", "true"); inner.textContent = "▾"; }
    });
  }

  document.addEventListener("click", function (e) {
    var toggle = e.target.closest(".osv-table .toggle");
    if (toggle) {
      var tr = toggle.closest("tr");
      setOpen(tr.closest("table"), tr, toggle.getAttribute("aria-expanded") !== "true");
      return;
    }
    var tool = e.target.closest("[data-tree]");
    if (tool) {
      var table = document.getElementById(tool.dataset.table);
      var open = tool.dataset.tree === "expand";
      table.querySelectorAll("tbody tr").forEach(function (row) {
        if (row.dataset.parent === "") setOpen(table, row, open);
      });
    }
  });

  // The selection for a batch retry outlives the live re-reading of rows.
  var picked = new Set();
  function restorePicks(root) {
    root.querySelectorAll('input[name="file_ids"]').forEach(function (box) {
      box.checked = picked.has(box.value);
    });
  }

  document.addEventListener("change", function (e) {
    if (e.target.id === "pick-all") {
      document.querySelectorAll('input[name="file_ids"]').forEach(function (box) {
        box.checked = e.target.checked;
        if (box.checked) picked.add(box.value); else picked.delete(box.value);
      });
    } else if (e.target.name === "file_ids") {
      if (e.target.checked) picked.add(e.target.value); else picked.delete(e.target.value);
    } else if (e.target.getAttribute("form") === "filter-form") {
      document.getElementById("filter-form").requestSubmit();
    }
  });

  // Times come in UTC; show them in the analyst's own zone.
  var timeFormat = new Intl.DateTimeFormat("ru-RU", {
    day: "2-digit", month: "2-digit", year: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
  function localTimes(root) {
    root.querySelectorAll("time[datetime]").forEach(function (el) {
      var value = el.getAttribute("datetime");
      if (!value) return;
      var date = new Date(value);
      if (!isNaN(date)) el.textContent = timeFormat.format(date).replace(",", "");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localTimes(document);
    var upload = document.getElementById("upload");
    if (upload) initUpload(upload);
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    var root = e.detail.elt.isConnected ? e.detail.elt : document;
    localTimes(root);
    restorePicks(root);
  });
})();
