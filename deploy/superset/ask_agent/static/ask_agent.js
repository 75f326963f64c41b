/*
 * "Ask the agent" on Superset's dashboard and dataset pages (ss-tools agent).
 *
 * Loaded by the <script> tag deploy/superset/ask_agent puts into every page; its two
 * settings are that tag's data-product-url and data-env-id. On a dashboard
 * (/superset/dashboard/<id or slug>/) or a dataset's explore page
 * (/explore/?datasource_type=table&datasource_id=<id>) it asks Superset's own API,
 * with the person's session, for the object's id and title, then shows one link:
 *   <product>/agent?objectType=…&objectId=…&objectName=…&envId=…  (a new tab)
 * Superset is a single-page app: the page's URL is watched and the link follows it.
 *
 * The title is data: it only ever becomes a URL parameter (encoded by URLSearchParams) and
 * is cut to the product's limit; the link's own text is the fixed label. Nothing here
 * builds HTML from strings, and no script is created (Superset's CSP stays as it is).
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || window.__ssToolsAskAgent) {
    return;
  }
  window.__ssToolsAskAgent = true;

  var PRODUCT = (script.getAttribute("data-product-url") || "").replace(/\/+$/, "");
  var ENV_ID = script.getAttribute("data-env-id") || "";
  if (!/^https?:\/\/[^\s]+$/i.test(PRODUCT) || !/^[A-Za-z0-9_.-]{1,64}$/.test(ENV_ID)) {
    return;
  }

  var ENTRY_ID = "ss-tools-ask-agent";
  var NAME_MAX = 256; // the product's limit of objectName (app.context.UIContext)
  var WORDS = {
    en: { label: "Ask the agent", dashboard: "dashboard", dataset: "dataset",
          title: "Open the ss-tools agent about this {what} (new tab)" },
    ru: { label: "Спросить агента", dashboard: "дашборд", dataset: "датасет",
          title: "Открыть агента ss-tools об этом объекте: {what} (новая вкладка)" }
  };

  function bootstrap() {
    var app = document.getElementById("app");
    if (!app) {
      return {};
    }
    try {
      var data = JSON.parse(app.getAttribute("data-bootstrap") || "{}");
      return (data && data.common) || {};
    } catch (e) {
      return {};
    }
  }

  var common = bootstrap();
  var ROOT = String(common.application_root || "/").replace(/\/+$/, "");

  function language() {
    var locale = String(common.locale || document.documentElement.lang || "en");
    return locale.toLowerCase().indexOf("ru") === 0 ? "ru" : "en";
  }

  /* The object the page is about: {type, ref} or null. */
  function pageObject() {
    var path = window.location.pathname;
    if (ROOT && path.indexOf(ROOT + "/") === 0) {
      path = path.slice(ROOT.length);
    }
    var params = new URLSearchParams(window.location.search);
    if (params.get("standalone")) {
      return null; // an embedded or standalone dashboard: no entry
    }
    var m = /^\/superset\/dashboard\/([^/]+)\/?$/.exec(path);
    if (m) {
      var ref;
      try {
        ref = decodeURIComponent(m[1]);
      } catch (e) {
        return null;
      }
      // only the API's numeric id (or a plain number) ever leaves as objectId
      return ref && ref.length <= 255 ? { type: "dashboard", ref: ref } : null;
    }
    if (/^\/(superset\/)?explore\/?$/.test(path)) {
      var id = params.get("datasource_type") === "table" ? params.get("datasource_id") : null;
      var combined = /^(\d{1,18})__table$/.exec(params.get("datasource") || "");
      id = id || (combined && combined[1]);
      return id && /^\d{1,18}$/.test(id) ? { type: "dataset", ref: id } : null;
    }
    return null;
  }

  /* The object's id and name from Superset's API (the person's own session). */
  function lookup(object) {
    var url = object.type === "dashboard"
      ? ROOT + "/api/v1/dashboard/" + encodeURIComponent(object.ref)
      : ROOT + "/api/v1/dataset/" + object.ref + "?q=(columns:!(id,table_name))";
    return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (body) {
        var result = (body && body.result) || {};
        var name = object.type === "dashboard" ? result.dashboard_title : result.table_name;
        var id = result.id;
        if (typeof id !== "number" || !isFinite(id)) {
          throw new Error("no id");
        }
        return { id: String(id), name: typeof name === "string" ? name : "" };
      })
      .catch(function () {
        // unknown to the API (or not visible): a plain id still gives a context, a slug none
        return /^\d{1,18}$/.test(object.ref) ? { id: object.ref, name: "" } : null;
      });
  }

  function cut(text) {
    var chars = Array.from(String(text).replace(/\s+/g, " ").trim());
    return chars.slice(0, NAME_MAX).join("");
  }

  function agentUrl(object, found) {
    var query = new URLSearchParams();
    if (found) {
      query.set("objectType", object.type);
      query.set("objectId", found.id);
      if (found.name) {
        query.set("objectName", cut(found.name));
      }
    }
    query.set("envId", ENV_ID);
    return PRODUCT + "/agent?" + query.toString();
  }

  function entry() {
    var link = document.getElementById(ENTRY_ID);
    if (link) {
      return link;
    }
    link = document.createElement("a");
    link.id = ENTRY_ID;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    link.setAttribute("data-ss-tools", "ask-agent");
    var s = link.style;
    s.position = "fixed";
    s.right = "20px";
    s.bottom = "20px";
    s.zIndex = "1000";
    s.padding = "8px 16px";
    s.borderRadius = "20px";
    s.background = "#1e293b";
    s.color = "#ffffff";
    s.font = "500 14px/20px Inter, Helvetica, Arial, sans-serif";
    s.textDecoration = "none";
    s.boxShadow = "0 2px 8px rgba(0, 0, 0, 0.25)";
    document.body.appendChild(link);
    return link;
  }

  function hide() {
    var link = document.getElementById(ENTRY_ID);
    if (link) {
      link.parentNode.removeChild(link);
    }
  }

  var shownFor = null;
  var asked = 0;

  function refresh() {
    var object = pageObject();
    var key = object ? object.type + ":" + object.ref + "@" + ROOT : null;
    if (key === shownFor) {
      return;
    }
    shownFor = key;
    hide();
    if (!object) {
      return;
    }
    var mine = ++asked;
    lookup(object).then(function (found) {
      if (mine !== asked) {
        return; // the person moved on meanwhile
      }
      var words = WORDS[language()];
      var link = entry();
      // on an explore page, above its Results/Samples bar (bottom right, like its toggle)
      link.style.bottom = object.type === "dataset" ? "72px" : "20px";
      link.textContent = words.label;
      link.href = agentUrl(object, found);
      link.title = words.title.replace("{what}", words[object.type]);
      link.setAttribute("aria-label", link.title);
      link.setAttribute("data-object-type", found ? object.type : "");
      link.setAttribute("data-object-id", found ? found.id : "");
    });
  }

  function start() {
    refresh();
    window.addEventListener("popstate", refresh);
    window.setInterval(refresh, 500); // the SPA's own navigation (history.pushState)
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
