/* sphinx-kexport: search, filters and live counts for the export-support page.
 *
 * Enhances the server-rendered tables in place; without this script the page
 * is complete (every row shown, the controls stay hidden). Vanilla, no
 * dependencies, scoped to each `.kexport` container, safe to load twice.
 *
 * What rows are filtered and counted by comes from attributes written by
 * sphinx_kexport/page/writers/html.py, never from cell markup: div.kexport[data-cols],
 * table[data-p][data-q], tr[data-s][data-o][data-y] (data-y: a dynamic-batch
 * code per cell, o any batch, s batch N only, f dynamic fails, - none). Search reads the visible text
 * of a row's first and last cells (the first lists the object's other public
 * names, "also: ..."): what the reader sees is what a search finds. What the codes and the status-naming filters mean the page says too
 * (div.kexport[data-supported][data-failing]..., sphinx_kexport/page/writers/
 * script_data.py, from the vocabulary's records): the script keeps no table
 * of statuses, so it cannot disagree with the page. Counts kept in step are
 * the elements with a class
 * `kexport-count--<key>`; one inside an element with a class
 * `kexport-pkg--<slug>` counts that package only.
 *
 * A page across torch versions (div.kexport[data-versions], oldest first) has
 * a version selector: tr[data-v] holds a differing row's status codes in each
 * version (one column-long run per version, "x": that version lacks the case),
 * and choosing a version swaps those codes in, hides the rows it lacks and
 * copies each differing cell's status from its strip (.kx-vs) into .kx-cur.
 * Rows without data-v read the same in every version and are never touched.
 *
 * A page with speed figures (probe --speed) has the filters "faster/slower than eager" per path, by
 * tr[data-e] (a verdict code per cell), and an order by a column's speed-up, by tr[data-x] (its ratios).
 */
(function () {
  "use strict";

  var URL_WRITE_DELAY = 150; // ms; Chrome throttles bursts of history.replaceState

  function isField(el) {
    if (!el || el === document.body) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  /* A string of one-letter codes as a lookup: "mf" -> { m: 1, f: 1 }. */
  function setOf(codes) {
    var set = {};
    for (var i = 0; i < codes.length; i++) set[codes.charAt(i)] = 1;
    return set;
  }

  /* What the page says of its statuses and dynamic-batch marks, read once (writers/script_data.py): sets of
     codes, single codes, and the words of the filters and counts that name a status (the filter values). */
  function readVocabulary(root) {
    function one(name) { return root.getAttribute("data-" + name) || ""; }
    return {
      supported: setOf(one("supported")), failing: setOf(one("failing")), batchChecked: setOf(one("batch-checked")),
      plain: one("plain"), na: one("na"), timedOut: one("timed-out"), breaks: one("breaks"),
      breaksPath: one("breaks-path"), onnxPath: one("onnx-path"),
      anyBatch: one("batch-any"), batchStatic: one("batch-static"),
      failWord: one("fail-word"), timeoutWord: one("timeout-word"), staticWord: one("static-word"),
      reproCompare: one("repro-compare"), reproRandom: one("repro-random"),
      // the speed filters (only on a page with speed figures): the verdicts' codes in tr[data-e], their words
      speedFaster: one("speed-faster"), speedSlower: one("speed-slower"),
      fasterWord: one("faster-word"), slowerWord: one("slower-word")
    };
  }

  function formatNumber(n, grouped) {
    return grouped ? n.toLocaleString("en-US") : String(n);
  }

  /* Searches compare normalised text: lower-case, every run of characters
     other than letters and digits turned into "-" (as search_key() in
     page/writers/html.py does for the data attributes), so "warp_perspective" matches
     "warp-perspective" and "linalg.svd" matches "linalg_svd". */
  function normalise(text) {
    return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
  }

  /* Words are ANDed; "a quoted phrase" is one term; -word excludes. */
  function parseQuery(text) {
    var terms = [], re = /(-?)(?:"([^"]*)"?|(\S+))/g, m;
    while ((m = re.exec(text)) !== null) {
      var term = normalise(m[2] !== undefined ? m[2] : m[3]);
      if (term) terms.push({ text: term, negate: m[1] === "-" });
    }
    return terms;
  }

  function Page(root, number) {
    this.root = root;
    this.vocab = readVocabulary(root);
    this.prefix = number ? "kx" + number + "-" : "kx-";
    this.controls = root.querySelector(".kexport-controls");
    this.input = this.controls && this.controls.querySelector("input[type=search]");
    this.filterSelect = this.controls && this.controls.querySelector("select[data-kx=filter]");
    this.deviceSelect = this.controls && this.controls.querySelector("select[data-kx=device]");
    this.versionSelect = this.controls && this.controls.querySelector("select[data-kx=version]");
    this.sortSelect = this.controls && this.controls.querySelector("select[data-kx=sort]");
    this.versions = (root.getAttribute("data-versions") || "").split("|").filter(Boolean);
    this.status = this.controls && this.controls.querySelector("[aria-live]");
    this.reasonChip = this.controls && this.controls.querySelector(".kx-reason");
    this.reason = "";
    this.readColumns();
    this.readRows();
    this.readGroups();
    this.version = this.versions.length - 1;  // the newest: what the server rendered
    this.versionActive = false;  // another version than the newest, or the newest lacks some rows
    this.counts = null;   // read at the first filter (or when idle): see readCounts
    this.reasons = null;  // likewise: see readReasons
    this.urlTimer = 0;
  }

  Page.prototype.readColumns = function () {
    var keys = (this.root.getAttribute("data-cols") || "").split(" ").filter(Boolean);
    this.columnKeys = keys;
    this.columnIndex = {};
    this.columnPath = [];
    this.columnDevice = [];
    this.devices = [];
    for (var i = 0; i < keys.length; i++) {
      var cut = keys[i].lastIndexOf("-");
      this.columnIndex[keys[i]] = i;
      this.columnPath.push(keys[i].slice(0, cut));
      this.columnDevice.push(keys[i].slice(cut + 1));
      if (this.devices.indexOf(this.columnDevice[i]) < 0) this.devices.push(this.columnDevice[i]);
    }
  };

  /* Row data, read once into flat arrays: visibility updates then touch only
     the rows that change. */
  Page.prototype.readRows = function () {
    var tables = this.root.querySelectorAll("table.kx-t");
    var trs = [], codes = [], changes = [], ops = [], pkgs = [], tableOf = [], disagree = [], batch = [], vcodes = [];
    var speed = [];
    var allOk = new Array(this.columnKeys.length + 1).join(this.vocab.plain); // rows without data-s
    var packageIndex = {}, packages = [], op = -1, nextOp = 0;
    this.tables = [];
    this.tableTexts = [];
    for (var t = 0; t < tables.length; t++) {
      var table = tables[t];
      var slug = table.getAttribute("data-p") || "";
      if (!(slug in packageIndex)) { packageIndex[slug] = packages.length; packages.push(slug); }
      this.tableTexts.push(table.getAttribute("data-q") || "");
      var wrapper = table.parentNode.classList.contains("kx-w") ? table.parentNode : table;
      this.tables.push({ el: wrapper, visible: 0, hidden: false });
      var body = table.tBodies[0], rows = body ? body.rows : [];
      for (var r = 0; r < rows.length; r++) {
        var tr = rows[r], o = tr.getAttribute("data-o");
        // data-o: absent = a new operator, "=" = the previous row's, N = operator N again
        if (o === null) op = nextOp++;
        else if (o !== "=") op = +o;
        trs.push(tr);
        codes.push(tr.getAttribute("data-s") || allOk);
        changes.push(tr.getAttribute("data-c") || "");
        batch.push(tr.getAttribute("data-y") || "");
        vcodes.push(tr.getAttribute("data-v") || "");
        speed.push(tr.getAttribute("data-e") || "");
        ops.push(op);
        pkgs.push(packageIndex[slug]);
        tableOf.push(t);
        disagree.push(tr.classList.contains("kx-dis"));
      }
    }
    this.trs = trs; this.codes = codes; this.ops = ops; this.pkgs = pkgs; this.texts = null;
    this.tableOf = tableOf; this.disagree = disagree; this.changes = changes; this.batch = batch;
    this.vcodes = vcodes; this.speed = speed; this.shownCodes = codes.slice(); this.absent = new Uint8Array(trs.length);
    this.packages = packages; this.packageIndex = packageIndex;
    this.visible = new Uint8Array(trs.length).fill(1);
    this.opSeen = new Uint32Array(nextOp);
    this.opOnnxSeen = new Uint32Array(nextOp);
    this.generation = 0;
  };

  /* The text a row is searched by: its table's package and section, its id
     (a slug of the case name) and what the operator and details cells show.
     Built once, when the browser is idle after start-up or at the first
     search, whichever comes first. */
  Page.prototype.searchTexts = function () {
    if (this.texts) return this.texts;
    var texts = new Array(this.trs.length);
    for (var i = 0; i < this.trs.length; i++) {
      var cells = this.trs[i].cells, last = cells[cells.length - 1], details = last.textContent;
      // The "Reproduce" box (the details cell's last child) holds code, not words to search.
      var box = last.lastElementChild;
      if (box && box.classList.contains("kx-repro")) details = details.slice(0, details.length - box.textContent.length);
      // The row's speed figures (numbers and sizes, once a tooltip of each cell) are not words to search either.
      var speed = last.querySelector("small.kx-spr");
      if (speed) details = details.replace(speed.textContent, "");
      texts[i] = this.tableTexts[this.tableOf[i]] + " " + this.trs[i].id + " " +
        normalise(cells[0].textContent) + " " + normalise(details);
    }
    return (this.texts = texts);
  };

  /* Sections (and sub-sections) between a table and the container; the one
     holding the controls is never hidden. */
  Page.prototype.readGroups = function () {
    var sections = [], found = new Map();
    for (var t = 0; t < this.tables.length; t++) {
      for (var el = this.tables[t].el.parentNode; el && el !== this.root; el = el.parentNode) {
        if (el.tagName !== "SECTION" && !el.classList.contains("section")) continue;
        if (this.controls && el.contains(this.controls)) continue;
        var rec = found.get(el);
        if (!rec) { rec = { el: el, tables: [], hidden: false }; found.set(el, rec); sections.push(rec); }
        rec.tables.push(t);
      }
    }
    this.sections = sections;
  };

  /* Every count element, with its original text (restored when the filter
     is cleared). */
  Page.prototype.readCounts = function () {
    if (this.counts) return this.counts;
    var els = this.root.getElementsByClassName("kexport-count"), counts = [];
    for (var i = 0; i < els.length; i++) {
      var el = els[i], key = null;
      for (var c = 0; c < el.classList.length; c++) {
        var name = el.classList[c];
        if (name.indexOf("kexport-count--") === 0) key = name.slice(15);
      }
      if (key === null) continue;
      var scope = el.closest("[class*='kexport-pkg--']"), pkg = -1;
      if (scope && this.root.contains(scope)) {
        var m = /(?:^|\s)kexport-pkg--(\S+)/.exec(scope.className);
        if (!m || !(m[1] in this.packageIndex)) continue;
        pkg = this.packageIndex[m[1]];
      }
      var target = el; // write into the innermost element holding all the text
      while (target.children.length === 1 && target.firstElementChild.textContent === target.textContent) {
        target = target.firstElementChild;
      }
      var text = target.textContent;
      counts.push({ el: target, key: key, pkg: pkg, original: text, grouped: /\d,\d{3}/.test(text) });
    }
    return (this.counts = counts);
  };

  /* The reason index (when the page has one): each entry lists its rows as
     links, which become the rows its "Show only these rows" button keeps. */
  Page.prototype.readReasons = function () {
    if (this.reasons) return this.reasons;
    // every index: a page across torch versions has one per version (ids kept apart)
    var reasons = {}, self = this, entries = this.root.querySelectorAll(".kx-rs > tbody > tr[id]");
    if (entries.length) {
      var rowIndex = {};
      for (var i = 0; i < this.trs.length; i++) rowIndex[this.trs[i].id] = i;
      Array.prototype.forEach.call(entries, function (entry) {
        var rows = new Uint8Array(self.trs.length), label = entry.querySelector(".kx-rt");
        entry.querySelectorAll(".kx-rr a[href^='#']").forEach(function (a) {
          var at = rowIndex[decodeURIComponent(a.getAttribute("href").slice(1))];
          if (at !== undefined) rows[at] = 1;
        });
        reasons[entry.id] = { rows: rows, text: label ? label.textContent : entry.id };
      });
    }
    return (this.reasons = reasons);
  };

  /* The buttons are hidden without JavaScript; one listener serves them all. */
  Page.prototype.bindReasonButtons = function () {
    var buttons = this.root.getElementsByClassName("kx-rf"), self = this;
    if (!buttons.length) return;
    for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
    this.root.addEventListener("click", function (e) {
      var button = e.target.closest && e.target.closest("button.kx-rf");
      if (button && self.root.contains(button)) self.showReason(button.getAttribute("data-kx-reason"));
    });
  };

  Page.prototype.showReason = function (id) {
    this.setReason(id);
    this.apply();
    this.controls.scrollIntoView({ block: "start" });
  };

  Page.prototype.setReason = function (id) {
    var reasons = id ? this.readReasons() : null;
    this.reason = reasons && reasons[id] ? id : "";
    if (!this.reasonChip) return;
    this.reasonChip.hidden = !this.reason;
    this.reasonChip.querySelector("q").textContent = this.reason ? reasons[this.reason].text : "";
  };

  /* Show version ``index`` (into data-versions): swap in each differing row's codes, note the rows that
     version lacks (apply() hides them) and copy the version's status from each strip into its cell. */
  Page.prototype.setVersion = function (index) {
    var ncol = this.columnKeys.length, lacking = 0;
    // the cells already show this version (at start, the newest): only the codes are read
    var cellsToo = this.cellsShow !== undefined && this.cellsShow !== index;
    if (this.cellsShow === undefined) this.cellsShow = this.versions.length - 1;
    if (cellsToo) this.cellsShow = index;
    this.version = index;
    for (var i = 0; i < this.trs.length; i++) {
      var v = this.vcodes[i];
      if (!v) continue;
      var run = v.substr(index * ncol, ncol), lacks = run.charAt(0) === "x";
      this.absent[i] = lacks ? 1 : 0;
      this.codes[i] = lacks ? this.shownCodes[i] : run;
      if (lacks) { lacking++; continue; }
      if (!cellsToo) continue;
      var curs = this.trs[i].getElementsByClassName("kx-cur");
      for (var k = 0; k < curs.length; k++) {
        var items = curs[k].parentNode.querySelectorAll(".kx-vi"), chosen = null;
        for (var j = 0; j < items.length; j++) {
          var mine = items[j].getAttribute("data-v") === String(index);
          items[j].classList.toggle("kx-vsel", mine);
          if (mine) chosen = items[j];
        }
        if (!chosen) continue;
        // the status after the version label: a pill element, or the plain word of an ok cell ("2.11.0 yes")
        var status = chosen.lastChild, label = this.versions[index].length;
        var copy = status.nodeType === 3 ? document.createTextNode(status.textContent.slice(label).trim())
                                         : status.cloneNode(true);
        curs[k].replaceChildren(copy);
      }
    }
    this.versionActive = index !== this.versions.length - 1 || lacking > 0;
    // the reason index of the chosen version (div.kx-rw[data-kv]); the others stay hidden
    var indexes = this.root.querySelectorAll(".kx-rw[data-kv]");
    for (var r = 0; r < indexes.length; r++) indexes[r].hidden = indexes[r].getAttribute("data-kv") !== this.versions[index];
    this.lacking = lacking;
  };

  /* At start, the rows the newest version lacks are hidden without a full apply(): the server's figures are
     already the newest version's (they leave those rows out), so nothing is recounted. */
  Page.prototype.hideLacking = function () {
    if (!this.lacking) return;
    for (var t = 0; t < this.tables.length; t++) this.tables[t].visible = 0;
    for (var i = 0; i < this.trs.length; i++) {
      if (this.absent[i]) { this.visible[i] = 0; this.trs[i].hidden = true; }
      else this.tables[this.tableOf[i]].visible++;
    }
    this.hideEmptyGroups();
  };

  Page.prototype.state = function () {
    return {
      query: this.input ? this.input.value : "",
      filter: this.filterSelect ? this.filterSelect.value : "",
      device: this.deviceSelect ? this.deviceSelect.value : "",
      reason: this.reason,
      sort: this.sortSelect ? this.sortSelect.value : "",
      // in the URL only when not the newest (the page's default)
      version: this.versionSelect && this.version !== this.versions.length - 1 ? this.versions[this.version] : ""
    };
  };

  /* A predicate (status codes, row index) for the chosen filter and device;
     null when every row passes. */
  Page.prototype.predicate = function (filter, device) {
    var cols = [], self = this, v = this.vocab;
    for (var i = 0; i < this.columnKeys.length; i++) {
      if (!device || this.columnDevice[i] === device) cols.push(i);
    }
    function anyOf(path, set) {
      var pick = cols.filter(function (i) { return !path || self.columnPath[i] === path; });
      return function (s) {
        for (var k = 0; k < pick.length; k++) if (set[s.charAt(pick[k])]) return true;
        return false;
      };
    }
    if (filter === v.failWord) return anyOf("", v.failing);
    if (filter.indexOf(v.failWord + "-") === 0) return anyOf(filter.slice(v.failWord.length + 1), v.failing);
    if (filter === "breaks") return anyOf(v.breaksPath, setOf(v.breaks));
    if (filter === v.timeoutWord) return anyOf("", setOf(v.timedOut));
    if (filter === "pass") {
      return function (s) {
        var probed = 0;
        for (var k = 0; k < cols.length; k++) {
          var code = s.charAt(cols[k]);
          if (code === v.na) continue;
          if (!v.supported[code]) return false;  // a timeout is not known to pass
          probed++;
        }
        return probed > 0;
      };
    }
    // "faster-compile", "slower-onnx": a chosen column of that path whose speed figure has that verdict
    var speedCode = "", speedWord = "";
    if (v.fasterWord && filter.indexOf(v.fasterWord + "-") === 0) { speedCode = v.speedFaster; speedWord = v.fasterWord; }
    if (v.slowerWord && filter.indexOf(v.slowerWord + "-") === 0) { speedCode = v.speedSlower; speedWord = v.slowerWord; }
    if (speedCode) {
      var path = filter.slice(speedWord.length + 1);
      var picked = cols.filter(function (i) { return self.columnPath[i] === path; });
      return function (s, i) {
        var e = self.speed[i];
        for (var k = 0; e && k < picked.length; k++) if (e.charAt(picked[k]) === speedCode) return true;
        return false;
      };
    }
    if (filter === "disagree") return function (s, i) { return self.disagree[i]; };
    if (filter === "versions") return function (s, i) { return self.vcodes[i] !== ""; };
    if (filter === v.staticWord) {  // works only at the traced batch size on a chosen column
      return function (s, i) {
        var y = self.batch[i];
        for (var k = 0; y && k < cols.length; k++) if (y.charAt(cols[k]) === v.batchStatic) return true;
        return false;
      };
    }
    if (filter === "regressed" || filter === "fixed" || filter === "changed") {
      var want = filter.charAt(0); // the change codes: r, f, c
      return function (s, i) {
        var c = self.changes[i];
        for (var k = 0; c && k < cols.length; k++) {
          var change = c.charAt(cols[k]);  // "-": unchanged
          if (change !== "-" && (want === "c" || change === want)) return true;
        }
        return false;
      };
    }
    return null;
  };

  /* The filter and, when one is chosen, the reason: both must hold. */
  Page.prototype.rowTest = function (st) {
    var test = this.predicate(st.filter, st.device);
    if (!st.reason) return test;
    var rows = this.reasons[st.reason].rows;
    return function (s, i) { return rows[i] === 1 && (test === null || test(s, i)); };
  };

  Page.prototype.apply = function () {
    var began = performance.now();
    var st = this.state(), terms = parseQuery(st.query), nt = terms.length;
    var test = this.rowTest(st);
    var n = this.trs.length, texts = nt ? this.searchTexts() : null, codes = this.codes, visible = this.visible;
    var absent = this.absent;
    var shown = 0, queryHits = 0, filterHits = 0;
    for (var t = 0; t < this.tables.length; t++) this.tables[t].visible = 0;
    for (var i = 0; i < n; i++) {
      var q = true;
      for (var k = 0; k < nt; k++) {
        var found = texts[i].indexOf(terms[k].text) !== -1;
        if (found === terms[k].negate) { q = false; break; }
      }
      var f = test === null || test(codes[i], i);
      if (q) queryHits++;
      if (f) filterHits++;
      var vis = q && f && !absent[i] ? 1 : 0;
      if (vis) { shown++; this.tables[this.tableOf[i]].visible++; }
      if (vis !== visible[i]) { visible[i] = vis; this.trs[i].hidden = !vis; }
    }
    this.hideEmptyGroups();
    var active = nt > 0 || test !== null;
    this.root.classList.toggle("kx-filtered", active);
    this.updateCounts(active || this.versionActive);  // another version's figures are recounted
    this.updateStatus(st, terms, shown, queryHits, filterHits, active);
    this.scheduleUrl(st);
    this.root.dispatchEvent(new Event("kx-apply"));
    var took = performance.now() - began;
    var timings = window.kexportTimings;
    timings.lastApply = took;
    timings.applies.push(took);
    if (timings.applies.length > 200) timings.applies.shift();
    return shown;
  };

  Page.prototype.hideEmptyGroups = function () {
    var t, tables = this.tables;
    for (t = 0; t < tables.length; t++) {
      var hide = tables[t].visible === 0;
      if (hide !== tables[t].hidden) { tables[t].hidden = hide; tables[t].el.hidden = hide; }
    }
    for (var s = 0; s < this.sections.length; s++) {
      var sec = this.sections[s], any = false;
      for (t = 0; t < sec.tables.length && !any; t++) any = tables[sec.tables[t]].visible > 0;
      if (any === sec.hidden) { sec.hidden = !any; sec.el.hidden = !any; }
    }
  };

  /* Recompute every count from the visible rows: supported / probed per
     column (n/a excluded), rows, pass-all, distinct operators. */
  Page.prototype.tally = function () {
    var ncol = this.columnKeys.length, npkg = this.packages.length;
    var scopes = [];
    for (var p = 0; p <= npkg; p++) {
      var passDevice = {};
      for (var d = 0; d < this.devices.length; d++) passDevice[this.devices[d]] = 0;
      scopes.push({ rows: 0, supported: new Array(ncol).fill(0), probed: new Array(ncol).fill(0), passAll: 0,
                    passDevice: passDevice, operators: 0, onnxOperators: 0, disagree: 0, failing: 0, breaks: 0,
                    anyBatch: new Array(ncol).fill(0), batchChecked: new Array(ncol).fill(0), statics: 0 });
    }
    var page = scopes[npkg], gen = ++this.generation, v = this.vocab;
    var devices = this.devices, columnDevice = this.columnDevice, columnPath = this.columnPath;
    for (var i = 0; i < this.trs.length; i++) {
      if (!this.visible[i]) continue;
      var s = this.codes[i], pkg = scopes[this.pkgs[i]], op = this.ops[i];
      var probedAll = 0, badAll = false, onnxOk = false, failing = false, breaks = false;
      var devProbed = {}, devBad = {}, y = this.batch[i], isStatic = false;
      for (var c = 0; y && c < ncol; c++) {  // dynamic-batch marks: supported cells only carry one
        var yc = y.charAt(c);
        if (!v.batchChecked[yc]) continue;  // no mark
        pkg.batchChecked[c]++; page.batchChecked[c]++;
        if (yc === v.anyBatch) { pkg.anyBatch[c]++; page.anyBatch[c]++; }
        if (yc === v.batchStatic) isStatic = true;
      }
      for (var c = 0; c < ncol; c++) {
        var code = s.charAt(c);
        if (code === v.na) continue;
        if (code === v.timedOut) { badAll = true; devBad[columnDevice[c]] = true; continue; }  // not known: not counted, not a pass
        var ok = v.supported[code] === 1;
        pkg.probed[c]++; page.probed[c]++;
        if (ok) { pkg.supported[c]++; page.supported[c]++; } else badAll = true;
        if (ok && columnPath[c] === v.onnxPath) onnxOk = true;
        if (v.failing[code]) failing = true;
        if (code === v.breaks) breaks = true;
        probedAll++;
        devProbed[columnDevice[c]] = (devProbed[columnDevice[c]] || 0) + 1;
        if (!ok) devBad[columnDevice[c]] = true;
      }
      var pass = probedAll > 0 && !badAll;
      for (var d2 = 0; d2 < devices.length; d2++) {
        var dev = devices[d2];
        if (devProbed[dev] && !devBad[dev]) { pkg.passDevice[dev]++; page.passDevice[dev]++; }
      }
      var both = [pkg, page];
      for (var b = 0; b < 2; b++) {
        var sc = both[b];
        sc.rows++;
        if (pass) sc.passAll++;
        if (failing) sc.failing++;
        if (breaks) sc.breaks++;
        if (this.disagree[i]) sc.disagree++;
        if (isStatic) sc.statics++;
      }
      // Operator ids are page-wide per (package, operator): one "seen" stamp serves both scopes.
      if (this.opSeen[op] !== gen) { this.opSeen[op] = gen; pkg.operators++; page.operators++; }
      if (onnxOk && this.opOnnxSeen[op] !== gen) { this.opOnnxSeen[op] = gen; pkg.onnxOperators++; page.onnxOperators++; }
    }
    return scopes;
  };

  Page.prototype.countText = function (scope, key, grouped) {
    var fmt = function (n) { return formatNumber(n, grouped); };
    var sum = function (a) { return a.reduce(function (x, y) { return x + y; }, 0); };
    // as model.Tally.batch_text: supported cells that hold at any batch size / those checked
    var batchText = function (good, checked) { return checked ? fmt(good) + " / " + fmt(checked) : "—"; };
    if (key in this.columnIndex) {
      var c = this.columnIndex[key];
      return scope.probed[c] ? fmt(scope.supported[c]) + " / " + fmt(scope.probed[c]) : "—";
    }
    if (key === this.vocab.staticWord) return fmt(scope.statics);  // rows working only at the traced batch size
    switch (key) {
      case "rows": return fmt(scope.rows);
      case "pass-all": return fmt(scope.passAll);
      case "operators": return fmt(scope.operators);
      case "onnx-operators": return fmt(scope.onnxOperators);
      case "disagree": return fmt(scope.disagree);
      case "failing": return fmt(scope.failing);
      case "breaks": return fmt(scope.breaks);
      case "dyn": return batchText(sum(scope.anyBatch), sum(scope.batchChecked));
    }
    if (key.indexOf("dyn-") === 0 && key.slice(4) in this.columnIndex) {
      var d = this.columnIndex[key.slice(4)];
      return batchText(scope.anyBatch[d], scope.batchChecked[d]);
    }
    if (key.indexOf("pass-all-") === 0 && key.slice(9) in scope.passDevice) return fmt(scope.passDevice[key.slice(9)]);
    return null; // unknown key: leave the server's text alone
  };

  Page.prototype.updateCounts = function (active) {
    if (!active && !this.counts) return;  // never changed: nothing to restore
    var counts = this.readCounts(), scopes = active ? this.tally() : null, npkg = this.packages.length;
    for (var i = 0; i < counts.length; i++) {
      var cnt = counts[i];
      var text = active ? this.countText(scopes[cnt.pkg < 0 ? npkg : cnt.pkg], cnt.key, cnt.grouped) : cnt.original;
      if (text !== null && cnt.el.textContent !== text) cnt.el.textContent = text;
    }
  };

  Page.prototype.filterLabel = function (st) {
    var parts = [];
    if (st.filter || st.device) {
      var label = this.filterSelect.options[this.filterSelect.selectedIndex].text;
      if (st.device && this.deviceSelect) label += " on " + this.deviceSelect.options[this.deviceSelect.selectedIndex].text;
      parts.push("“" + label + "”");
    }
    if (st.reason) parts.push("the reason “" + this.reasons[st.reason].text + "”");
    return parts.join(" with ");
  };

  Page.prototype.updateStatus = function (st, terms, shown, queryHits, filterHits, active) {
    if (!this.status) return;
    var total = this.trs.length - (this.lacking || 0), text, query = "“" + st.query.trim() + "”";
    var filtering = st.filter || st.device || st.reason;
    if (!active) {
      text = formatNumber(total, true) + " configurations";
    } else if (shown > 0) {
      text = "Showing " + formatNumber(shown, true) + " of " + formatNumber(total, true) + " configurations";
    } else if (terms.length && !queryHits) {
      text = "No configuration matches " + query + ". Every word must appear in the operator (or another " +
             "of its names), variant, package, section or reason; try fewer or shorter words.";
    } else if (filtering && !filterHits) {
      text = "No configuration in " + this.filterLabel(st) + ".";
    } else {
      text = "No configuration matches " + query + " in " + this.filterLabel(st) + " (the search alone matches " +
             formatNumber(queryHits, true) + "; clear the filter to see them).";
    }
    this.controls.classList.toggle("kx-none", active && shown === 0);
    if (this.status.textContent !== text) this.status.textContent = text;
  };

  Page.prototype.scheduleUrl = function (st) {
    var self = this;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(function () { self.writeUrl(st); }, URL_WRITE_DELAY);
  };

  Page.prototype.writeUrl = function (st) {
    var params = new URLSearchParams(location.search);
    var values = { q: st.query, f: st.filter, d: st.device, reason: st.reason, v: st.version, sort: st.sort };
    for (var name in values) {
      if (values[name]) params.set(this.prefix + name, values[name]);
      else params.delete(this.prefix + name);
    }
    var qs = params.toString();
    var url = location.pathname + (qs ? "?" + qs : "") + location.hash;
    if (url === location.pathname + location.search + location.hash) return;
    try { history.replaceState(history.state, "", url); } catch (e) { /* file:// in some browsers */ }
  };

  function selectValue(select, value) {
    if (!select || !value) return false;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === value) { select.value = value; return true; }
    }
    return false;
  }

  Page.prototype.readUrl = function () {
    var params = new URLSearchParams(location.search), changed = false;
    var q = params.get(this.prefix + "q");
    if (q && this.input) { this.input.value = q; changed = true; }
    changed = selectValue(this.filterSelect, params.get(this.prefix + "f")) || changed;
    changed = selectValue(this.deviceSelect, params.get(this.prefix + "d")) || changed;
    var reason = params.get(this.prefix + "reason");
    if (reason) { this.setReason(reason); changed = changed || !!this.reason; }
    if (selectValue(this.versionSelect, params.get(this.prefix + "v"))) this.setVersion(this.chosenVersion());
    if (selectValue(this.sortSelect, params.get(this.prefix + "sort"))) this.sortBy(this.sortSelect.value);
    return changed || this.version !== this.versions.length - 1;
  };

  /* The version chosen in the selector, as an index into data-versions. */
  Page.prototype.chosenVersion = function () {
    var at = this.versions.indexOf(this.versionSelect.value);
    return at < 0 ? this.versions.length - 1 : at;
  };

  Page.prototype.clear = function () {
    var st = this.state();
    if (!st.query && !st.filter && !st.device && !st.reason) return false;
    if (this.input) this.input.value = "";
    if (this.filterSelect) this.filterSelect.value = "";
    if (this.deviceSelect) this.deviceSelect.value = "";
    this.setReason("");
    this.apply();
    return true;
  };

  /* The order by speed: each table's rows by the chosen column's ratio eager/path (tr[data-x], the figure the
     cell's mark shows), largest first; rows without a figure there keep their order, last. "" restores the
     page's order. Only the rows move: every per-row array keeps its index. */
  Page.prototype.sortBy = function (key) {
    var c = key in this.columnIndex ? this.columnIndex[key] : -1, n = this.trs.length, i;
    if (!this.ratios) {
      this.ratios = [];
      for (i = 0; i < n; i++) {
        var x = this.trs[i].getAttribute("data-x");
        this.ratios.push(x ? x.split(" ").map(function (r) { return r === "-" ? NaN : +r; }) : null);
      }
    }
    var byTable = this.tables.map(function () { return []; });
    for (i = 0; i < n; i++) byTable[this.tableOf[i]].push(i);
    var ratios = this.ratios;
    function ratio(i) { var r = ratios[i]; return r && c >= 0 && !isNaN(r[c]) ? r[c] : -1; }
    for (var t = 0; t < byTable.length; t++) {
      var rows = byTable[t];
      if (c >= 0) rows.sort(function (a, b) { return ratio(b) - ratio(a) || a - b; });
      var body = rows.length && this.trs[rows[0]].parentNode;
      for (var k = 0; k < rows.length; k++) body.appendChild(this.trs[rows[k]]);
    }
  };

  /* A deep link to a row the filter hides clears the filter first. */
  Page.prototype.revealTarget = function () {
    var id = decodeURIComponent(location.hash.slice(1));
    var row = id && document.getElementById(id);
    if (!row || !this.root.contains(row) || row.tagName !== "TR" || !row.hidden) return;
    var i = this.trs.indexOf(row), ncol = this.columnKeys.length;
    if (i >= 0 && this.absent[i]) {  // the chosen torch version lacks it: show the newest version that has it
      for (var v = this.versions.length - 1; v >= 0; v--) {
        if (this.vcodes[i].charAt(v * ncol) !== "x") { this.versionSelect.value = this.versions[v]; break; }
      }
      this.setVersion(this.chosenVersion());
      if (!this.clear()) this.apply();
    } else {
      this.clear();
    }
    row.scrollIntoView({ block: "center" });
  };

  /* "Reproduce": the page carries one code template per column; a failing
     row carries its call. Opening the box shows, per failing cell, the
     exact snippet with a copy button. Built with text nodes only: the call
     and the name are untrusted. */
  Page.prototype.fillRepro = function (box) {
    if (box.__kexportFilled) return;
    box.__kexportFilled = true;
    if (this.reproTemplates === undefined) {
      // <template class="kx-repro-tpl"><pre data-k="onnx-cpu">code</pre>...</template> (templates/repro.html.jinja)
      var holder = this.root.querySelector("template.kx-repro-tpl"), found = null;
      if (holder) {
        found = {};
        holder.content.querySelectorAll("pre[data-k]").forEach(function (pre) {
          found[pre.getAttribute("data-k")] = pre.textContent;
        });
      }
      this.reproTemplates = found;
    }
    var templates = this.reproTemplates, code = box.querySelector("pre");
    var tr = box.closest("tr"), i = this.trs.indexOf(tr);
    if (!templates || !code || i < 0) return;
    var call = code.textContent, name = box.getAttribute("data-n") || "", s = this.codes[i];
    // as sphinx_kexport.snapshot.repro.call_body: no trailing space, no second "import torch"
    var body = call.replace(/\s+$/, "").replace(/^import torch\n/, "");
    var labels = (this.root.getAttribute("data-labels") || "").split("|");
    // a random operator (data-r) is compared on shapes only, as the probe did
    var v = this.vocab, compare = templates[v.reproCompare + (box.hasAttribute("data-r") ? v.reproRandom : "")] || "";
    var added = 0;
    for (var c = 0; c < this.columnKeys.length; c++) {
      var template = templates[this.columnKeys[c]];
      if (!this.vocab.failing[s.charAt(c)] || !template) continue;
      // The order matters and matches sphinx_kexport.snapshot.repro.fill_template: the call last.
      var text = template.split("@@KX_COMPARE@@").join(compare).split("@@KX_TITLE@@").join(name)
        .split("@@KX_CALL@@").join(body);
      box.appendChild(snippet(labels[c] || this.columnKeys[c], text));
      added++;
    }
    if (added) code.hidden = true;  // each snippet holds the call
  };

  function snippet(label, text) {
    var wrap = document.createElement("div"), head = document.createElement("div");
    var button = document.createElement("button"), pre = document.createElement("pre");
    wrap.className = "kx-snippet";
    head.textContent = label + " ";
    button.type = "button";
    button.textContent = "Copy";
    button.addEventListener("click", function () {
      copyText(text).then(function () { button.textContent = "Copied"; },
                          function () { button.textContent = "Select and copy"; });
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    });
    head.appendChild(button);
    pre.textContent = text;
    pre.tabIndex = 0;  // a long line scrolls sideways: the keyboard reaches it
    wrap.appendChild(head);
    wrap.appendChild(pre);
    return wrap;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {  // file:// and plain http
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }

  Page.prototype.bind = function () {
    var self = this;
    if (this.input) this.input.addEventListener("input", function () { self.apply(); });
    if (this.filterSelect) this.filterSelect.addEventListener("change", function () { self.apply(); });
    if (this.deviceSelect) this.deviceSelect.addEventListener("change", function () { self.apply(); });
    if (this.sortSelect) {
      this.sortSelect.addEventListener("change", function () { self.sortBy(self.sortSelect.value); self.scheduleUrl(self.state()); });
    }
    if (this.versionSelect) {
      this.versionSelect.addEventListener("change", function () { self.setVersion(self.chosenVersion()); self.apply(); });
    }
    if (this.reasonChip) {
      this.reasonChip.querySelector("button").addEventListener("click", function () {
        self.setReason("");
        self.apply();
      });
    }
    this.root.addEventListener("toggle", function (e) {  // toggle does not bubble: capture it
      if (e.target.classList && e.target.classList.contains("kx-repro") && e.target.open) self.fillRepro(e.target);
    }, true);
    this.controls.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && self.clear()) e.preventDefault();
    });
    window.addEventListener("hashchange", function () { self.revealTarget(); });
  };

  Page.prototype.start = function () {
    if (!this.controls || !this.input || !this.trs.length) return false;
    this.bind();
    this.bindReasonButtons();
    this.controls.hidden = false;
    if (this.versions.length) {  // the newest may lack some rows: hide them
      this.setVersion(this.version);
      this.hideLacking();
    }
    if (this.readUrl()) this.apply();
    this.revealTarget();
    var self = this, idle = window.requestIdleCallback || function (fn) { return setTimeout(fn, 200); };
    // What the first search or filter needs, read while the reader looks at the page.
    idle(function () { self.searchTexts(); self.readCounts(); });
    return true;
  };

  function bindKeys(pages) {
    if (window.__kexportKeys) return;
    window.__kexportKeys = true;
    // Capture phase, so this runs before theme shortcuts bound to "/".
    window.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      var active = document.activeElement;
      if (e.key === "/" && !isField(active) && pages.length) {
        pages[0].input.focus();
        pages[0].input.select();
        e.preventDefault();
        e.stopPropagation();
      } else if (e.key === "Escape" && !isField(active)) {
        pages.forEach(function (p) { p.clear(); });
      }
    }, true);
  }

  /* Sideways scrolling: a table wider than its column scrolls inside the
   * nearest container with overflow-x auto/scroll (ours, or a theme's own
   * wrapper). That container gets `kx-more-r` / `kx-more-l` while content is
   * hidden to its right / left, and the stylesheet fades that edge, so a cut
   * column reads as "scroll for more", not as the table's end. Measured only
   * while the container is on screen (tables far off screen are not laid out). */
  function scrollerOf(table, root) {
    // Our own wrapper without asking for styles: getComputedStyle inside a
    // content-visibility: auto subtree (.kx-w) leaves Chromium reporting no
    // boxes for the first row of the table.
    if (table.parentElement.classList.contains("kx-w")) return table.parentElement;
    for (var el = table; el && el !== root; el = el.parentElement) {
      var overflow = getComputedStyle(el).overflowX;
      if (overflow === "auto" || overflow === "scroll") return el;
    }
    return null;
  }

  function markScroll(el) {
    var hidden = el.scrollWidth - el.clientWidth, left = Math.abs(el.scrollLeft);
    el.classList.toggle("kx-more-l", hidden > 1 && left > 1);
    el.classList.toggle("kx-more-r", hidden > 1 && left < hidden - 1);
    // While it scrolls, the keyboard reaches it (arrow keys scroll the focused box); a tabindex
    // of the markup's own (our .kx-w) or of the theme's stays as it is.
    if (hidden > 1 && !el.hasAttribute("tabindex")) {
      el.tabIndex = 0;
      el.__kexportFocusable = true;
    } else if (hidden <= 1 && el.__kexportFocusable) {
      el.removeAttribute("tabindex");
      el.__kexportFocusable = false;
    }
  }

  function watchScrolling(root) {
    // Containers on screen are measured after a window scroll or resize, a filter
    // change, or their own sideways scroll.
    var scrollers = [], pending = false;
    function onScreen(el) {
      var r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
    }
    function update() {
      pending = false;
      scrollers.forEach(function (el) { if (onScreen(el)) markScroll(el); });
    }
    function later() {
      if (!pending) { pending = true; requestAnimationFrame(update); }
    }
    var idle = window.requestIdleCallback || function (fn) { return setTimeout(fn, 0); };
    idle(function () {
      root.querySelectorAll("table").forEach(function (table) {
        var el = scrollerOf(table, root);
        if (!el || scrollers.indexOf(el) !== -1) return;
        scrollers.push(el);
        el.addEventListener("scroll", function () { markScroll(el); }, { passive: true });
        // laid out already, on screen or not: measured once now, so each is reachable by keyboard
        if (!el.classList.contains("kx-w")) markScroll(el);
      });
      update();
    });
    window.addEventListener("scroll", later, { passive: true });
    window.addEventListener("resize", later);
    root.addEventListener("kx-apply", later);  // rows shown or hidden change widths
  }

  function enhance() {
    var began = performance.now();
    var timings = window.kexportTimings = window.kexportTimings || { applies: [] };
    var roots = document.querySelectorAll(".kexport"), pages = [];
    for (var i = 0; i < roots.length; i++) {
      if (roots[i].__kexport) continue; // idempotent: a second copy of the script does nothing
      var page = new Page(roots[i], i);
      roots[i].__kexport = page;
      watchScrolling(roots[i]);
      if (page.start()) pages.push(page);
    }
    if (pages.length) bindKeys(pages);
    timings.init = performance.now() - began;
    timings.rows = pages.reduce(function (n, p) { return n + p.trs.length; }, 0);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", enhance);
  else enhance();
})();
