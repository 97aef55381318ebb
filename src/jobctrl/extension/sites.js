// jobctrl: which addresses look like a job posting (the badge asks jobctrl only about
// those), and the site a page belongs to (what the person allows background pages on).

const POSTING_HOSTS = [
  "linkedin.com",
  "indeed.com",
  "greenhouse.io",
  "lever.co",
  "ashbyhq.com",
  "workable.com",
  "smartrecruiters.com",
  "workdayjobs.com",
  "recruitee.com",
  "personio.de",
  "teamtailor.com",
];

// A job page on a company's own site: /jobs/…, /careers/…, /viewjob?…, /positions/…
const POSTING_PATH = /\/(jobs?|careers?|viewjob|positions?|openings?|vacanc(y|ies)|stellen)\b/i;

function hostIs(host, domain) {
  return host === domain || host.endsWith("." + domain);
}

/** True when `url` is a web page that may be a job posting. */
export function looksLikePosting(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return false;
  const host = u.hostname.toLowerCase();
  return POSTING_HOSTS.some((d) => hostIs(host, d)) || POSTING_PATH.test(u.pathname);
}

/** The address jobctrl knows a posting by: a LinkedIn or Indeed job shown beside a list
 * of search results (…?currentJobId=ID, …?vjk=ID) is the job's own page, so a save from
 * the list and one from the page are the same job; any other address as it is. */
export function postingAddress(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const host = u.hostname.toLowerCase();
  if (hostIs(host, "linkedin.com")) {
    const id = (u.pathname.match(/\/jobs\/view\/(?:[^/]*-)?(\d+)/) || [])[1] ||
      u.searchParams.get("currentJobId");
    if (id && /^\d+$/.test(id)) return `https://www.linkedin.com/jobs/view/${id}/`;
  }
  if (/(^|\.)indeed\.[a-z.]+$/.test(host)) {
    const id = u.searchParams.get("jk") || u.searchParams.get("vjk");
    if (id && /^[0-9a-f]+$/i.test(id)) return `${u.protocol}//${host}/viewjob?jk=${id}`;
  }
  return url;
}

/** The site a page is on, as the person sees it: its host name without "www.". */
export function siteOf(url) {
  try {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") return "";
    return u.hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return "";
  }
}

/** The permission pattern that lets the extension read pages of `url`'s site. */
export function originPattern(url) {
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  if (/^[\d.]+$/.test(host) || host.startsWith("[") || !host.includes(".")) {
    return `${u.protocol}//${host}/*`; // an address or a one-word name: no subdomains
  }
  return `${u.protocol}//*.${host.replace(/^www\./, "")}/*`;
}

/** True for the person's own computer (the extension may always reach jobctrl there). */
export function isLoopback(url) {
  try {
    const host = new URL(url).hostname;
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
  } catch {
    return false;
  }
}
