/* jobctrl: reads the job posting on the page the person is looking at.
 *
 * Injected into the page's isolated world by the extension (chrome.scripting, files:
 * ["extract.js"]); its last expression is the capture, which executeScript hands back.
 * Nothing here changes the page, clicks, scrolls or fetches: it only reads what the
 * person's browser already shows. The tests load the same file into fixture pages.
 *
 * A capture: {url, title, company, location, description, jsonld, html, site,
 * signInWall, applyOnSite}. The page's JobPosting JSON-LD wins where present; otherwise a
 * per-site reader (LinkedIn, Indeed, Greenhouse, Lever, Ashby, Workable) or, for any
 * other page, the largest block of readable text.
 */
(function () {
  "use strict";

  var MAX_FIELD = 300; // title, company, location
  var MAX_DESCRIPTION = 100000; // characters of description text (jobctrl's own limit)
  var MAX_HTML = 400000; // characters of the posting's own markup

  function clean(text) {
    return (text || "").replace(/\s+/g, " ").trim();
  }

  function short(text) {
    var t = clean(text);
    return t.length > MAX_FIELD ? t.slice(0, MAX_FIELD) : t;
  }

  function block(text) {
    // Keeps paragraphs and list lines; drops runs of blank lines and trailing spaces.
    var t = (text || "")
      .replace(/\r/g, "")
      .replace(/[ \t\f\v\u00a0]+/g, " ")
      .replace(/ *\n */g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    return t.length > MAX_DESCRIPTION ? t.slice(0, MAX_DESCRIPTION) : t;
  }

  function first(doc, selectors) {
    for (var i = 0; i < selectors.length; i++) {
      var el = doc.querySelector(selectors[i]);
      if (el && clean(el.textContent)) return el;
    }
    return null;
  }

  function textOf(doc, selectors) {
    var el = first(doc, selectors);
    return el ? short(el.textContent) : "";
  }

  function readable(el) {
    if (!el) return "";
    var raw = el.textContent || "";
    // A page with megabytes of text: cut, without asking the layout for all of it.
    if (raw.length > 2 * MAX_DESCRIPTION) return block(raw.slice(0, 2 * MAX_DESCRIPTION));
    // innerText follows the layout (line breaks, hidden parts left out) when the element
    // is rendered; textContent is the fallback for a detached or hidden element.
    var t = typeof el.innerText === "string" && el.innerText.trim() ? el.innerText : "";
    return block(t || raw);
  }

  function meta(doc, name) {
    var el = doc.querySelector('meta[property="' + name + '"], meta[name="' + name + '"]');
    return el ? short(el.getAttribute("content")) : "";
  }

  function htmlText(html) {
    // A JSON-LD description is HTML in a string: parsed inert (DOMParser runs no script).
    if (!html) return "";
    var parsed = new DOMParser().parseFromString(String(html), "text/html");
    parsed.querySelectorAll("br").forEach(function (br) { br.replaceWith("\n"); });
    parsed.querySelectorAll("p, li, div, h1, h2, h3, h4, ul, ol").forEach(function (el) {
      el.append("\n");
    });
    return block(parsed.body ? parsed.body.textContent : "");
  }

  // -- JSON-LD ---------------------------------------------------------------------------

  function isPosting(node) {
    var type = node && node["@type"];
    if (Array.isArray(type)) return type.indexOf("JobPosting") >= 0;
    return type === "JobPosting";
  }

  function findPosting(node, depth) {
    if (!node || typeof node !== "object" || depth > 6) return null;
    if (Array.isArray(node)) {
      for (var i = 0; i < node.length; i++) {
        var hit = findPosting(node[i], depth + 1);
        if (hit) return hit;
      }
      return null;
    }
    if (isPosting(node)) return node;
    return findPosting(node["@graph"], depth + 1) || findPosting(node.mainEntity, depth + 1);
  }

  function jsonLd(doc) {
    var scripts = doc.querySelectorAll('script[type="application/ld+json"]');
    for (var i = 0; i < scripts.length; i++) {
      try {
        var hit = findPosting(JSON.parse(scripts[i].textContent), 0);
        if (hit) return hit;
      } catch (e) {
        // A broken block is skipped; another may hold the posting.
      }
    }
    return null;
  }

  function name(value) {
    if (!value) return "";
    if (typeof value === "string") return short(value);
    if (Array.isArray(value)) return name(value[0]);
    return short(value.name || "");
  }

  function place(posting) {
    var spots = posting.jobLocation;
    spots = Array.isArray(spots) ? spots : spots ? [spots] : [];
    var names = [];
    spots.forEach(function (spot) {
      var a = (spot && spot.address) || {};
      if (typeof a === "string") {
        names.push(clean(a));
        return;
      }
      var parts = [a.addressLocality, a.addressRegion, name(a.addressCountry)]
        .map(clean)
        .filter(Boolean);
      if (parts.length) names.push(parts.join(", "));
    });
    var remote = String(posting.jobLocationType || "").toUpperCase() === "TELECOMMUTE";
    if (remote) names.push("Remote");
    return short(names.join("; "));
  }

  function fromJsonLd(posting) {
    return {
      title: short(posting.title || posting.name || ""),
      company: name(posting.hiringOrganization),
      location: place(posting),
      description: htmlText(posting.description),
    };
  }

  // -- the sites ---------------------------------------------------------------------------

  function hostIs(host, domain) {
    return host === domain || host.slice(-(domain.length + 1)) === "." + domain;
  }

  function titleParts(doc, separator) {
    // "Engineer - Acme" / "Engineer at Acme": [role, company] from the page title.
    var parts = clean(doc.title).split(separator);
    return parts.length > 1 ? [short(parts[0]), short(parts[parts.length - 1])] : ["", ""];
  }

  var SITES = [
    {
      site: "linkedin",
      hosts: ["linkedin.com"],
      marks: [".jobs-unified-top-card", ".job-details-jobs-unified-top-card__job-title",
        ".jobs-description", ".top-card-layout__title"],
      read: function (doc) {
        var apply = first(doc, [".jobs-apply-button", ".jobs-s-apply button"]);
        return {
          root: first(doc, [".jobs-details", ".job-view-layout", ".jobs-search__job-details",
            ".details", "main"]),
          title: textOf(doc, [".job-details-jobs-unified-top-card__job-title",
            ".jobs-unified-top-card__job-title", ".top-card-layout__title", "h1"]),
          company: textOf(doc, [".job-details-jobs-unified-top-card__company-name",
            ".jobs-unified-top-card__company-name", ".topcard__org-name-link",
            ".top-card-layout__second-subline a"]),
          location: textOf(doc, [
            ".job-details-jobs-unified-top-card__primary-description-container .tvm__text",
            ".jobs-unified-top-card__bullet", ".topcard__flavor--bullet"]),
          description: readable(first(doc, ["#job-details", ".jobs-description__content",
            ".jobs-description-content__text", ".show-more-less-html__markup",
            ".description__text"])),
          signInWall: !!first(doc, [".authwall", ".join-form", ".sign-in-modal",
            "[data-tracking-control-name*='auth_wall']"]),
          applyOnSite: !!apply && /easy apply/i.test(apply.textContent),
        };
      },
    },
    {
      site: "indeed",
      hosts: ["indeed.com", "indeed.co.uk", "indeed.de", "indeed.fr", "indeed.ca"],
      marks: ["#jobDescriptionText", ".jobsearch-JobInfoHeader-title"],
      read: function (doc) {
        var apply = first(doc, ["#indeedApplyButton", ".ia-IndeedApplyButton",
          "[data-testid='indeedApply']"]);
        return {
          root: first(doc, [".jobsearch-ViewJobLayout-jobDisplay", ".jobsearch-JobComponent",
            "main"]),
          title: textOf(doc, ["[data-testid='jobsearch-JobInfoHeader-title']",
            "h1.jobsearch-JobInfoHeader-title", "h1"]).replace(/\s*-\s*job post$/i, ""),
          company: textOf(doc, ["[data-testid='inlineHeader-companyName']",
            "[data-company-name='true']", ".jobsearch-CompanyInfoContainer a"]),
          location: textOf(doc, ["[data-testid='inlineHeader-companyLocation']",
            "[data-testid='job-location']", "#jobLocationText"]),
          description: readable(first(doc, ["#jobDescriptionText"])),
          signInWall: false,
          applyOnSite: !!apply,
        };
      },
    },
    {
      site: "greenhouse",
      hosts: ["greenhouse.io"],
      marks: ["#app_body #header .app-title", ".job__title", ".job__description"],
      read: function (doc) {
        var fromTitle = titleParts(doc, / at /);
        var company = textOf(doc, [".company-name"]).replace(/^at\s+/i, "");
        return {
          root: first(doc, ["#app_body", ".job-post", "main"]),
          title: textOf(doc, [".app-title", ".job__title h1", "h1.section-header", "h1"]),
          company: company || meta(doc, "og:site_name") || fromTitle[1],
          location: textOf(doc, [".location", ".job__location"]),
          description: readable(first(doc, ["#content", ".job__description"])),
        };
      },
    },
    {
      site: "lever",
      hosts: ["lever.co"],
      marks: [".posting-headline", ".posting-page"],
      read: function (doc) {
        var logo = doc.querySelector(".main-header-logo img[alt]");
        var sections = doc.querySelectorAll(
          ".posting-page [data-qa='job-description'], .posting-page .section.page-centered"
        );
        var parts = [];
        sections.forEach(function (s) {
          if (!s.querySelector(".posting-headline, .postings-btn, form")) parts.push(readable(s));
        });
        return {
          root: first(doc, [".posting-page", ".content", "main"]),
          title: textOf(doc, [".posting-headline h2", "h2"]),
          company: (logo && short(logo.getAttribute("alt")).replace(/\s+logo$/i, "")) ||
            titleParts(doc, / - /)[0],
          location: textOf(doc, [".posting-categories .location", ".sort-by-location"]),
          description: block(parts.filter(Boolean).join("\n\n")),
        };
      },
    },
    {
      site: "ashby",
      hosts: ["ashbyhq.com"],
      marks: [".ashby-job-posting-heading", "[class*='ashby-job-posting']"],
      read: function (doc) {
        return {
          root: first(doc, ["[class*='_jobPosting']", "main", "#root"]),
          title: textOf(doc, [".ashby-job-posting-heading", "h1"]),
          company: meta(doc, "og:site_name") || titleParts(doc, / @ /)[1],
          location: textOf(doc, [".ashby-job-posting-location",
            "[class*='_section'] [class*='_location']"]),
          description: readable(first(doc, [".ashby-job-posting-description",
            "[class*='_descriptionText']", "[class*='_description']"])),
        };
      },
    },
    {
      site: "workable",
      hosts: ["workable.com"],
      marks: ["[data-ui='job-title']", "[data-ui='job-description']"],
      read: function (doc) {
        var parts = ["job-description", "job-requirements", "job-benefits"].map(function (ui) {
          return readable(doc.querySelector("[data-ui='" + ui + "']"));
        });
        return {
          root: first(doc, ["main", "[data-ui='job-page']", "#app"]),
          title: textOf(doc, ["[data-ui='job-title']", "h1"]),
          company: textOf(doc, ["[data-ui='company-name']"]) || meta(doc, "og:site_name"),
          location: textOf(doc, ["[data-ui='job-location']"]),
          description: block(parts.filter(Boolean).join("\n\n")),
        };
      },
    },
  ];

  function siteFor(doc, host) {
    for (var i = 0; i < SITES.length; i++) {
      for (var j = 0; j < SITES[i].hosts.length; j++) {
        if (hostIs(host, SITES[i].hosts[j])) return SITES[i];
      }
    }
    // A mirror, a proxy or a saved copy of a known site: known by its markup.
    for (var k = 0; k < SITES.length; k++) {
      if (first(doc, SITES[k].marks)) return SITES[k];
    }
    return null;
  }

  // -- any other page: the largest block of readable text ------------------------------------

  function generic(doc) {
    var best = null;
    var bestScore = 0;
    var candidates = doc.querySelectorAll("article, main, [role='main'], section, div");
    for (var i = 0; i < candidates.length && i < 5000; i++) {
      var el = candidates[i];
      if (el.closest("nav, header, footer, aside, form")) continue;
      var score = 0;
      el.querySelectorAll(":scope > p, :scope > ul > li, :scope > ol > li, :scope > div > p")
        .forEach(function (p) { score += clean(p.textContent.slice(0, MAX_DESCRIPTION)).length; });
      if (score > bestScore) {
        best = el;
        bestScore = score;
      }
    }
    var root = best || doc.querySelector("main, article") || doc.body;
    return {
      root: root,
      title: textOf(doc, ["main h1", "article h1", "h1"]) || meta(doc, "og:title") ||
        short(doc.title),
      company: meta(doc, "og:site_name"),
      location: "",
      description: readable(root),
    };
  }

  function extract(doc, url) {
    var host = "";
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch (e) {
      host = "";
    }
    var site = siteFor(doc, host);
    var read = site ? site.read(doc) : generic(doc);
    var posting = jsonLd(doc);
    var fields = posting ? fromJsonLd(posting) : {};
    var html = read.root ? read.root.outerHTML : "";
    return {
      url: url,
      title: fields.title || read.title || "",
      company: fields.company || read.company || "",
      location: fields.location || read.location || "",
      description: fields.description || read.description || "",
      jsonld: posting,
      html: html.length > MAX_HTML ? "" : html,
      site: site ? site.site : "generic",
      signInWall: !!read.signInWall,
      applyOnSite: !!read.applyOnSite,
    };
  }

  globalThis.jobctrlExtract = extract;
})();

// The value chrome.scripting.executeScript hands back to the extension.
typeof document !== "undefined" ? globalThis.jobctrlExtract(document, location.href) : null;
