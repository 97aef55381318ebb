"""posting_links picks the same-site links of a careers page that look like postings."""

from __future__ import annotations

import lxml.html

from jobctrl.sources.careers_page import MAX_POSTING_LINKS, posting_links


def _links(page_url: str, hrefs: list[str], head: str = "") -> list[str]:
    anchors = "".join(f'<a href="{href}">x</a>' for href in hrefs)
    tree = lxml.html.document_fromstring(f"<html><head>{head}</head><body>{anchors}</body></html>")
    return posting_links(tree, page_url)


def test_links_under_the_page_path_or_named_like_postings() -> None:
    links = _links(
        "https://acme.example/about/careers/",
        [
            "backend-engineer",
            "/about/careers/frontend?utm_source=x",
            "/about/careers/",  # the page itself
            "/open-positions/7",
            "/apply?jobId=9",
            "/about/team",
            "https://www.acme.example/vacancies/3",  # www. is the same site
            "https://acme.example:8443/jobs/4",  # another port is another site
            "http://shop.acme.example/jobs/5",  # another host
            "javascript:openJob(1)",
            "/about/careers/photo.JPG",
        ],
    )

    assert links == [
        "https://acme.example/about/careers/backend-engineer",
        "https://acme.example/about/careers/frontend?utm_source=x",
        "https://acme.example/open-positions/7",
        "https://acme.example/apply?jobId=9",
        "https://www.acme.example/vacancies/3",
    ]


def test_a_root_careers_page_only_follows_links_named_like_postings() -> None:
    links = _links("https://careers.acme.example/", ["/life", "/teams/eng", "/jobs/1"])

    assert links == ["https://careers.acme.example/jobs/1"]


def test_base_href_is_honoured() -> None:
    links = _links(
        "https://acme.example/careers", ["job/1"], head='<base href="https://acme.example/en/">'
    )

    assert links == ["https://acme.example/en/job/1"]


def test_links_are_capped() -> None:
    links = _links("https://acme.example/careers", [f"/careers/{i}" for i in range(300)])

    assert len(links) == MAX_POSTING_LINKS == 200
    assert links[-1] == "https://acme.example/careers/199"
