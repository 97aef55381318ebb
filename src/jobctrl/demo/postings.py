"""Synthetic posting pages for benchmarks: realistic, varied and fully deterministic.

``generate_postings(n, seed)`` combines invented companies, roles, locations and requirement
lists into ``n`` HTML pages. Most carry schema.org JobPosting JSON-LD in one of the shapes
seen in the wild (a single object, ``@graph``, a list with a breadcrumb, an HTML-escaped
description); every tenth page has none, so main-text extraction is exercised too. Page
``i`` depends only on ``(seed, i)``, so a smaller ``n`` yields a prefix of a larger one.
"""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any, NamedTuple

__all__ = [
    "COMPANIES",
    "Opening",
    "draw_opening",
    "generate_postings",
    "posting_description",
    "posting_page",
]

# Invented employers as (name, what it does); the demo job boards reuse them.
COMPANIES: tuple[tuple[str, str], ...] = (
    ("Alderbrook Health", "runs virtual clinics for 2 million patients"),
    ("Brightlane Mobility", "builds routing software for city bus and tram networks"),
    ("Cinderwell Games", "makes cosy multiplayer games played by 9 million people"),
    ("Dovetail Robotics", "automates small-batch manufacturing with collaborative robots"),
    ("Emberline Insurance", "offers pay-as-you-go insurance for freelancers"),
    ("Foxglove Learning", "builds adaptive maths tutoring for secondary schools"),
    ("Granite Peak Analytics", "helps retailers forecast demand across 40,000 stores"),
    ("Hollowtree Media", "publishes independent local news in 60 towns"),
    ("Ironbark Security", "protects mid-sized companies from account takeover"),
    ("Juniper Grid", "balances home batteries to stabilise the power grid"),
    ("Kittiwake Travel", "sells rail and ferry trips across Europe"),
    ("Larkspur Legal", "automates contract review for in-house legal teams"),
    ("Moorhen Logistics", "coordinates last-mile deliveries for grocers"),
    ("Nettlefield Agritech", "gives farmers soil and yield insights from satellite data"),
    ("Oakum Payments", "moves money for online marketplaces"),
    ("Pebblebrook Finance", "builds budgeting tools for young households"),
    ("Quarry Lane Studio", "designs and builds apps for cultural institutions"),
    ("Rowan & Slate", "sells refurbished electronics online"),
    ("Saltmarsh Bio", "designs antibodies with machine learning"),
    ("Thistledown HR", "runs payroll and benefits for small businesses"),
)

_LOCATIONS: tuple[tuple[str, str, str], ...] = (
    ("London", "England", "GB"), ("Manchester", "England", "GB"), ("Edinburgh", "Scotland", "GB"),
    ("Dublin", "Leinster", "IE"), ("Amsterdam", "Noord-Holland", "NL"), ("Berlin", "Berlin", "DE"),
    ("Munich", "Bavaria", "DE"), ("Paris", "Île-de-France", "FR"), ("Lisbon", "Lisbon", "PT"),
    ("Barcelona", "Catalonia", "ES"), ("Stockholm", "Stockholm", "SE"), ("New York", "NY", "US"),
    ("Austin", "TX", "US"), ("Seattle", "WA", "US"), ("Toronto", "ON", "CA"),
)  # fmt: skip

# title, responsibilities, requirements, nice-to-haves
_ROLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    ("Backend Engineer",
     ("Design and build REST APIs used by our web and mobile apps.",
      "Own services in production, including on-call and incident reviews.",
      "Improve performance and reliability of our PostgreSQL-backed services.",
      "Work with product and design to scope new features."),
     ("Strong Python skills and experience with Django or FastAPI.",
      "Experience with PostgreSQL and writing efficient SQL.", "Experience with Docker.",
      "Experience designing REST APIs.", "Experience with AWS or GCP.",
      "Good written communication."),
     ("Experience with Kafka or RabbitMQ.", "Kubernetes in production.", "Terraform.")),
    ("Frontend Engineer",
     ("Build accessible, fast interfaces in React and TypeScript.",
      "Work closely with designers on our design system.",
      "Own frontend performance and testing."),
     ("Strong TypeScript and React.", "Solid HTML and CSS, including accessibility.",
      "Experience with automated tests for UI code.", "Experience working with a design system.",
      "Experience consuming GraphQL or REST APIs."),
     ("Experience with Next.js.", "Figma skills.", "Experience with mobile web performance.")),
    ("Data Engineer",
     ("Build batch and streaming data pipelines.", "Model data in the warehouse with dbt.",
      "Work with analysts and data scientists on new datasets."),
     ("Strong Python and SQL.", "Experience with Airflow or Dagster.",
      "Experience with Spark or another distributed processing framework.",
      "Experience with Snowflake or BigQuery.", "Experience with dbt."),
     ("Kafka experience.", "Terraform or other infrastructure as code.", "AWS or GCP.")),
    ("Data Scientist",
     ("Build models that forecast demand and detect anomalies.",
      "Design and analyse A/B tests.", "Present findings to leadership."),
     ("Strong Python, including pandas and scikit-learn.", "Solid statistics and probability.",
      "Experience with SQL.", "Experience designing A/B tests.",
      "A degree in a quantitative field such as statistics, mathematics or computer science."),
     ("Experience with PyTorch.", "Experience with Spark.", "A PhD is a plus.")),
    ("Machine Learning Engineer",
     ("Train, evaluate and deploy machine learning models.", "Build our feature store.",
      "Monitor models in production."),
     ("Experience with PyTorch or TensorFlow.", "Strong Python.",
      "Experience deploying machine learning models to production.",
      "Experience with Docker and Kubernetes.", "Experience with SQL."),
     ("Experience with LLMs.", "Experience with Spark.", "Publications are a bonus.")),
    ("Platform Engineer",
     ("Run our Kubernetes clusters on AWS.", "Manage infrastructure as code with Terraform.",
      "Build CI/CD tooling for product teams.", "Improve observability and alerting."),
     ("Production experience with Kubernetes.", "Experience with Terraform.",
      "Experience with AWS or GCP.", "Programming experience in Go or Python.",
      "Experience with Prometheus and Grafana.", "Experience with CI/CD systems."),
     ("Experience with Helm or Argo CD.", "Linux internals.", "Security experience.")),
    ("Site Reliability Engineer",
     ("Define SLOs and run incident reviews.", "Automate toil away.",
      "Take part in the on-call rotation."),
     ("Experience in site reliability or operations roles.", "Strong Linux skills.",
      "Experience with Kubernetes and Docker.", "Experience with monitoring and observability.",
      "Programming experience in Go or Python."),
     ("Experience with Terraform.", "Experience with PostgreSQL at scale.", "eBPF.")),
    ("iOS Engineer",
     ("Build features for our iOS app in Swift.", "Own app performance and crash rates.",
      "Work with designers on new flows."),
     ("Strong Swift and iOS experience.", "Experience with automated tests for mobile apps.",
      "Experience consuming REST APIs.", "Experience shipping apps to the App Store."),
     ("Experience with Kotlin or Android.", "Experience with CI/CD for mobile.")),
    ("Product Manager",
     ("Own the roadmap for one product area.", "Talk to customers every week.",
      "Work with engineering and design to ship."),
     ("Experience in product management for a software product.",
      "Excellent communication and stakeholder management.",
      "Experience running user research.", "Comfortable with data analysis and SQL."),
     ("Experience with A/B testing.", "A technical background.")),
    ("Product Designer",
     ("Design end-to-end flows from research to launch.", "Contribute to our design system.",
      "Run usability tests."),
     ("A portfolio of product design work.", "Expert in Figma.",
      "Experience with prototyping and user research.", "Experience with design systems."),
     ("Basic HTML and CSS.", "Experience designing for mobile.")),
    ("Engineering Manager",
     ("Lead and grow a team of backend engineers.", "Own delivery and reliability.",
      "Hire great engineers."),
     ("Experience managing engineers, including hiring and performance reviews.",
      "A background as a backend engineer in Python, Java or Go.",
      "Excellent communication skills.", "Experience mentoring engineers."),
     ("Experience with Kubernetes.", "Experience in a regulated industry.")),
    ("Security Engineer",
     ("Run our application security programme.", "Review designs and code for risks.",
      "Respond to security incidents."),
     ("Experience in application security.", "Programming experience in Python or Go.",
      "Experience with AWS security.", "Knowledge of OWASP and threat modelling."),
     ("Experience with Kubernetes security.", "Security certifications are a plus.")),
)  # fmt: skip

_LEVELS: tuple[tuple[str, int], ...] = (("Junior", 1), ("", 3), ("Senior", 5), ("Staff", 8))
_MUST_HEADINGS = ("Requirements", "What you'll bring", "Qualifications", "You have", "About you")
_NICE_HEADINGS = ("Nice to have", "Bonus points", "Preferred qualifications", "Pluses")
_BENEFITS = (
    "Flexible hours and a four-day week in August.", "25 days of holiday plus public holidays.",
    "A yearly learning budget.", "Private health insurance.", "Parental leave of 26 weeks.",
    "Stock options.", "A home-office budget.",
)  # fmt: skip


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _ul(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def posting_description(rng: random.Random, company: tuple[str, str], role: Any, years: int) -> str:
    """The HTML body of a posting for ``role`` at ``company`` (an entry of ``COMPANIES``).

    About the company and the role, three duties, a "``years``+ years" line and three to five
    must-haves, two nice-to-haves and three benefits, under headings drawn from ``rng``.
    """
    title, duties, musts, nices = role
    name, blurb = company
    requirements = [f"{years}+ years of professional experience as a {title.lower()}."]
    requirements += rng.sample(musts, k=min(len(musts), rng.randint(3, 5)))
    return (
        f"<p>{html.escape(name)} {html.escape(blurb)}. We are a team of {rng.randint(20, 400)} "
        f"people and growing.</p><h3>About the role</h3><p>As a {html.escape(title)} you will "
        "join a small, senior team with real ownership of what it builds.</p>"
        f"<h3>What you'll do</h3>{_ul(rng.sample(duties, k=min(len(duties), 3)))}"
        f"<h3>{html.escape(rng.choice(_MUST_HEADINGS))}</h3>{_ul(requirements)}"
        f"<h3>{html.escape(rng.choice(_NICE_HEADINGS))}</h3>"
        f"{_ul(rng.sample(nices, k=min(len(nices), 2)))}"
        f"<h3>Benefits</h3>{_ul(rng.sample(_BENEFITS, k=3))}"
    )


def posting_page(
    title: str, company: str, location: str, body: str, ld: Any | None, apply: str
) -> str:
    """A careers-site page for one posting: ``body`` under its title and location, the
    JSON-LD ``ld`` in the head (none when ``ld`` is None) and an apply link to ``apply``."""
    script = ""
    if ld is not None:
        data = json.dumps(ld, ensure_ascii=False).replace("</", "<\\/")
        script = f'<script type="application/ld+json">{data}</script>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} | {html.escape(company)} Careers</title>"
        f'<meta property="og:site_name" content="{html.escape(company)}">{script}</head><body>'
        f'<header><a href="/">{html.escape(company)}</a><nav><a href="/about">About</a> '
        '<a href="/careers">Careers</a></nav></header><main><article>'
        f"<h1>{html.escape(title)}</h1><p>Location: {html.escape(location)}</p>{body}"
        f'<p><a class="apply" href="{html.escape(apply)}">Apply now</a></p></article></main>'
        f"<footer><p>&copy; 2025 {html.escape(company)}</p></footer></body></html>"
    )


class Opening(NamedTuple):
    """A role at a level in a place, drawn at random."""

    role: Any  # (title, duties, must-haves, nice-to-haves) from the role table
    years: int
    title: str
    place: tuple[str, str, str]  # city, region, country
    remote: bool
    location: str  # as shown: "City, CC" or "Remote (CC)"


def draw_opening(rng: random.Random, remote_share: float) -> Opening:
    """A random role, level and place; remote with probability ``remote_share``."""
    role = rng.choice(_ROLES)
    level, years = rng.choice(_LEVELS)
    place = rng.choice(_LOCATIONS)
    remote = rng.random() < remote_share
    location = f"Remote ({place[2]})" if remote else f"{place[0]}, {place[2]}"
    return Opening(role, years, f"{level} {role[0]}".strip(), place, remote, location)


def _posting(seed: int, i: int) -> tuple[str, str]:
    rng = random.Random(f"jobctrl-demo:{seed}:{i}")
    company = rng.choice(COMPANIES)
    role, years, title, (city, region, country), remote, location = draw_opening(rng, 0.25)
    path = f"/jobs/{_slug(title)}-{_slug(company[0])}-{i:04d}.html"
    body = posting_description(rng, company, role, years)
    apply = f"{path[:-5]}/apply"
    if i % 10 == 9:  # no structured data: main-text extraction only
        return path, posting_page(title, company[0], location, body, None, apply)

    posting: dict[str, Any] = {
        "@type": "JobPosting",
        "title": title,
        "description": body,
        "datePosted": f"2025-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}",
        "employmentType": "FULL_TIME",
        "hiringOrganization": {"@type": "Organization", "name": company[0]},
        "url": path,
    }
    if remote:
        posting["jobLocationType"] = "TELECOMMUTE"
        posting["applicantLocationRequirements"] = {"@type": "Country", "name": country}
    else:
        posting["jobLocation"] = {
            "@type": "Place",
            "address": {
                "@type": "PostalAddress",
                "addressLocality": city,
                "addressRegion": region,
                "addressCountry": country,
            },
        }
    if rng.random() < 0.4:
        low = rng.randrange(40, 160, 5) * 1000
        posting["baseSalary"] = {
            "@type": "MonetaryAmount",
            "currency": {"GB": "GBP", "US": "USD", "CA": "CAD", "SE": "SEK"}.get(country, "EUR"),
            "value": {
                "@type": "QuantitativeValue",
                "minValue": low,
                "maxValue": low + rng.randrange(10, 40, 5) * 1000,
                "unitText": "YEAR",
            },
        }
    shape = rng.random()
    ld: Any
    if shape < 0.5:
        ld = {"@context": "https://schema.org", **posting}
    elif shape < 0.7:
        org_id = f"https://{_slug(company[0])}.example/#org"
        posting["hiringOrganization"] = {"@id": org_id}
        org = {"@type": "Organization", "@id": org_id, "name": company[0]}
        ld = {"@context": "https://schema.org", "@graph": [org, posting]}
    elif shape < 0.85:
        crumbs = {
            "@type": "BreadcrumbList",
            "itemListElement": [{"@type": "ListItem", "name": "Jobs"}],
        }
        posting["@type"] = ["JobPosting"]
        ld = [
            {"@context": "https://schema.org", **crumbs},
            {"@context": "https://schema.org", **posting},
        ]
    else:
        posting["description"] = html.escape(body, quote=False)
        ld = {"@context": "https://schema.org", **posting}
    return path, posting_page(title, company[0], location, body, ld, apply)


def generate_postings(n: int, seed: int = 0) -> dict[str, str]:
    """``n`` posting pages keyed by path ("/jobs/<slug>.html"), the same for the same seed."""
    return dict(_posting(seed, i) for i in range(n))
