"""Numbers, dates and durations read from a sentence (domain.truth.quantities)."""

from __future__ import annotations

import pytest

from jobctrl.domain.truth.quantities import PRESENT, Quantity, counted_compatible, parse_date, scan


def only(text: str) -> Quantity:
    (q,) = scan(text).quantities
    return q


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("1,200 DAGs", 1200, None),
        ("1200 DAGs", 1200, None),
        ("99.5%", 99.5, "%"),
        ("38 percent", 38, "%"),
        ("38 per cent", 38, "%"),
        ("50M+ events", 50e6, None),
        ("more than 50 million events", 50e6, None),
        ("50B+ events", 50e9, None),
        ("2.5bn requests", 2.5e9, None),
        ("300k users", 300e3, None),
        ("12MM rows", 12e6, None),
        ("$2M", 2e6, "USD"),
        ("US$2M", 2e6, "USD"),
        ("€1.8B", 1.8e9, "EUR"),
        ("EUR 1.8 billion", 1.8e9, "EUR"),
        ("£300k", 300e3, "GBP"),
        ("2 million dollars", 2e6, "USD"),
        ("3x faster", 3, "x"),
        ("3× faster", 3, "x"),
        ("three times faster", 3, "x"),
        ("a 3-fold rise", 3, "x"),
        ("900 ms", 0.9, "s"),
        ("900ms", 0.9, "s"),
        ("2 minutes", 120, "s"),
        ("two minutes", 120, "s"),
        ("90 minutes", 5400, "s"),
        ("6 hours", 21600, "s"),
        ("2 TB", 2e12, "B"),
        ("2,000 GB", 2e12, "B"),
        ("sixty engineers", 60, None),
        ("twenty-five people", 25, None),
        ("one hundred and twenty services", 120, None),
        ("a dozen teams", 12, None),
        ("two dozen teams", 24, None),
        ("a hundred clients", 100, None),
        ("half a million users", 500e3, None),
        ("five thousand stores", 5000, None),
        ("three million two hundred thousand rows", 3.2e6, None),
        ("2000 engineers", 2000, None),
        ("10X faster", 10, "x"),
        ("sub-200ms latency", 0.2, "s"),
        ("by 8.5 points", 8.5, "pp"),
        ("by 8.5 percentage points", 8.5, "pp"),
    ],
)
def test_a_quantity_is_read_with_its_magnitude_and_unit(
    text: str, value: float, unit: str | None
) -> None:
    q = only(text)
    assert q.value == pytest.approx(value)
    assert q.unit == unit


def test_fifty_million_and_fifty_billion_differ() -> None:
    assert only("50M+ events").value != only("50B+ events").value


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("led teams of 40 people", ("person",)),
        ("moved 40 services to Kubernetes", ("service",)),
        ("12 million carrier updates a day", ("carrier", "update")),
        ("40 highly available services", ("available", "service")),
        ("256 A100 GPUs", ("a100", "gpu")),
        ("25 nightly batch jobs", ("batch", "job")),
        ("40,000 merchants used it", ("merchant",)),
        ("70% of alerts", ("alert",)),
        ("3 of whom went on", ("of-whom",)),
        ("cut it from 11 to 2", ()),
    ],
)
def test_what_a_quantity_counts_is_the_words_after_it(text: str, counted: tuple[str, ...]) -> None:
    assert scan(text).quantities[0].counted == counted


def test_a_rate_is_read_in_any_spelling() -> None:
    assert only("12 million updates a day").per == "day"
    assert only("12M updates/day").per == "day"
    assert only("2 TB every night").per == "day"
    assert only("25 nightly jobs").per == "day"
    assert only("100 req/s").per == "s"
    assert only("100 requests per second").per == "s"


def test_a_change_from_one_number_to_another_marks_both() -> None:
    a, b = scan("cut incidents from 11 to 2 per quarter").quantities
    assert (a.role, b.role) == ("from", "to")
    _, a, b = scan("cut p95 latency from 900 to 180 ms").quantities  # p95, 900, 180
    assert (a.value, a.unit) == (pytest.approx(0.9), "s")  # the unit carries back
    assert scan("up to 40% faster").quantities[0].role is None
    a, b = scan("recovery fell from 47 minutes to 18").quantities
    assert (b.value, b.unit) == (18 * 60, "s")  # the unit carries forward too
    a, b = scan("from 11 to 2 per quarter").quantities
    assert a.per == b.per == "quarter"


def test_multiplier_verbs_equal_their_percentage_and_ratio() -> None:
    halved = only("halved deploy time")
    assert (halved.value, halved.unit) == (0.5, "x")
    assert (50.0, "%") in halved.forms and (2.0, "x") in halved.forms
    assert (100.0, "%") in only("doubled revenue").forms
    assert only("tripled throughput").value == 3
    assert only("cut build time in half").value == 0.5


def test_vague_amounts_are_ranges() -> None:
    q = only("millions of users")
    assert (q.value, q.vague_upto, q.counted) == (1e6, 1e9, ("user",))


def test_the_lone_word_one_is_not_a_count() -> None:
    assert scan("one of the engineers").quantities == ()
    assert scan("an engineer").quantities == ()


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Mar 2021", (2021, 3), None),
        ("March 2021", (2021, 3), None),
        ("Mar. 2021", (2021, 3), None),
        ("March 3, 2021", (2021, 3), None),
        ("3 March 2021", (2021, 3), None),
        ("2021-03", (2021, 3), None),
        ("2021-03-15", (2021, 3), None),
        ("03/2021", (2021, 3), None),
        ("3/2021", (2021, 3), None),
        ("in 2021", (2021, None), None),
        ("Mar 2021 – Present", (2021, 3), PRESENT),
        ("2021–present", (2021, None), PRESENT),
        ("2021 - now", (2021, None), PRESENT),
        ("2019 – 2021", (2019, None), (2021, None)),
        ("2019-2021", (2019, None), (2021, None)),
        ("June 2018 to February 2021", (2018, 6), (2021, 2)),
        ("between 2019 and 2021", (2019, None), (2021, None)),
        ("since 2016", (2016, None), PRESENT),
    ],
)
def test_dates_are_read_in_every_spelling(text: str, start: object, end: object) -> None:
    (d,) = scan(text).dates
    assert (d.start, d.end) == (start, end)


def test_a_year_is_not_a_quantity_and_a_version_is_neither() -> None:
    m = scan("Since 2021 I have run version 4.2.1 of the API.")
    assert [d.start for d in m.dates] == [(2021, None)]
    assert m.quantities == ()
    assert m.versions == ("4.2.1",)
    assert scan("2000 engineers").dates == ()


def test_two_standalone_years_are_not_a_range() -> None:
    dates = scan("Tech Hero award, 2021 and 2023").dates
    assert [(d.start, d.end, d.anchored) for d in dates] == [
        ((2021, None), None, False),
        ((2023, None), None, False),
    ]
    assert scan("joined Allegro in 2021").dates[0].anchored


@pytest.mark.parametrize(
    ("text", "years", "at_least", "worked"),
    [
        ("8 years of experience", 8, False, True),
        ("8+ years", 8, True, True),
        ("over eight years", 8, True, True),
        ("five years", 5, False, True),
        ("a decade", 10, False, True),
        ("over a decade", 10, True, True),
        ("two decades", 20, False, True),
        ("18 months", 1.5, False, True),
        ("two and a half years", 2.5, False, True),
        ("an 18-month migration", 1.5, False, False),
        ("an 8-year career", 8, False, True),
        ("shipped in 6 months", 0.5, False, False),
    ],
)
def test_durations_are_read_in_years(text: str, years: float, at_least: bool, worked: bool) -> None:
    (d,) = scan(text).durations
    assert d.years == pytest.approx(years)
    assert (d.at_least, d.worked) == (at_least, worked)
    assert scan(text).quantities == ()


def test_a_year_after_a_rate_is_not_a_duration() -> None:
    assert scan("2 TB a year").durations == ()


@pytest.mark.parametrize(
    ("raw", "point"),
    [
        ("2021-03", (2021, 3)),
        ("Mar 2021", (2021, 3)),
        ("03/2021", (2021, 3)),
        ("2021", (2021, None)),
        ("present", PRESENT),
        ("Present", PRESENT),
        ("current", PRESENT),
        ("", None),
        ("someday", None),
    ],
)
def test_profile_date_fields_parse(raw: str, point: object) -> None:
    assert parse_date(raw) == point


def test_counted_words_compare_by_head_with_people_covering_person_nouns() -> None:
    def q(*counted: str) -> Quantity:
        return Quantity("", 40, counted=counted)

    assert counted_compatible(q("service"), q("microservice"))
    assert counted_compatible(q("update"), q("carrier", "update"))
    assert counted_compatible(q("person"), q("data", "engineer"))
    assert not counted_compatible(q("person"), q("service"))
    assert not counted_compatible(q("engineer"), q("attendee"))
    assert counted_compatible(q(), q("service"))


@pytest.mark.parametrize(
    "text",
    [
        "4.2.1.7.8.9" * 200,
        "1," * 2000,
        "-" * 2000,
        "twenty " * 300,
        "Mar " * 500 + "2021",
        "a" * 2000,
        "9" * 2000,
    ],
)
def test_pathological_input_is_read_quickly(text: str) -> None:
    import time

    start = time.perf_counter()
    scan(text)
    assert time.perf_counter() - start < 0.5


# -- what a careful paraphrase writes (issue 27) -----------------------------------------------


def test_a_range_is_not_a_change() -> None:
    for text in ("5-12 engineers", "5 to 12 engineers", "five to twelve engineers"):
        a, b = scan(text).quantities
        assert (a.value, b.value, a.role, b.role) == (5, 12, None, None), text
        assert a.counted == b.counted == ("engineer",), text
    a, b = scan("grew the team from 5 to 12 engineers").quantities
    assert (a.role, b.role) == ("from", "to")
    assert scan("grew the team to 12 engineers").quantities[0].role == "to"


@pytest.mark.parametrize(
    "text",
    ["200+ teams", "200 or more teams", "200-plus teams", "200 plus teams", "over 200 teams"],
)
def test_n_plus_and_its_spellings_mean_at_least_n(text: str) -> None:
    q = only(text)
    assert (q.value, q.bound, q.counted) == (200, "above", ("team",))


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("100K+ QPS", "query"),
        ("100,000 queries per second", "query"),
        ("100k RPS", "request"),
        ("100k req/s", "request"),
        ("100,000 requests a second", "request"),
        ("3,000 TPS", "transaction"),
    ],
)
def test_a_rate_unit_says_what_it_counts_each_second(text: str, counts: str) -> None:
    q = only(text)
    assert (q.head, q.per, q.unit) == (counts, "s", None)


def test_a_query_is_a_request_but_not_a_transaction() -> None:
    qps = only("100K+ QPS")
    assert counted_compatible(only("100,000 requests per second"), qps)
    assert not counted_compatible(only("100,000 TPS"), qps)


@pytest.mark.parametrize(
    "text",
    [
        "a dashboard that 200+ internal teams use",
        "a dashboard that 200+ internal teams use daily",
        "a library 200+ internal teams rely on",
        "payment links that 200+ internal teams took up",
        "a dashboard used by 200+ internal teams",
        "a dashboard serving 200+ internal teams",
    ],
)
def test_what_a_number_counts_ends_before_its_verb(text: str) -> None:
    assert only(text).counted == ("internal", "team")


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("moved 18 Kubernetes services together onto the mesh", ("kubernete", "service")),
        ("brought 12 engineers onto the platform team", ("engineer",)),
        ("caught 30 regressions ahead of release", ("regression",)),
        ("four engineers, two designers maintains the library", ("designer",)),
        ("the library that two designers maintains", ("designer",)),
    ],
)
def test_what_a_number_counts_ends_with_its_noun_phrase(
    text: str, counted: tuple[str, ...]
) -> None:
    assert scan(text).quantities[-1].counted == counted


def test_n_of_them_is_a_part_of_what_came_before() -> None:
    part = only("promoted 4 of them to senior")
    assert (part.text, part.counted) == ("4 of them", ("of-whom",))
    assert counted_compatible(part, Quantity("", 4, counted=("engineer",)))
    assert counted_compatible(Quantity("", 4, counted=("engineer",)), part)


def test_people_are_users_and_a_website_is_a_site() -> None:
    people, users = only("tens of thousands of people"), only("tens of thousands of users")
    assert counted_compatible(people, users)
    assert counted_compatible(only("millions of websites"), only("millions of sites"))


def test_a_verb_after_a_number_is_not_what_it_counts() -> None:
    assert only("led a team of six building the merchant app").counted == ()
    assert only("designed six buildings").counted == ("building",)
    assert only("200 internal use cases").counted == ("internal", "use", "case")


@pytest.mark.parametrize(
    "text", ["p99 latency", "99th percentile latency", "99th-percentile latency", "P99 latency"]
)
def test_a_percentile_is_one_quantity_however_written(text: str) -> None:
    q = only(text)
    assert (q.value, q.unit, q.counted) == (99, "percentile", ("latency",))


def test_another_percentile_is_another_quantity_and_a_priority_is_none() -> None:
    assert only("p95 latency").value == 95
    assert scan("P1 incidents").quantities == ()
