"""Recall of the claim check (issue 27): lies that cite real facts, one rule each.

A lying model cites the fact it bends. Each rule here catches one way of bending a real
fact without a new name, number or tool, and lets the truthful rewrite next to it pass:
fusion of two facts, a name of another entry, a duration summed over entries, a higher
role verb, an "about" that adds a figure, and content words no fact says.
"""

from __future__ import annotations

from datetime import date

import pytest

from jobctrl.domain.facts import Fact, profile_facts
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.claims import ClaimContext, Unsupported, check_sentence
from jobctrl.domain.truth.grades import fact_grade, graded_verbs

PROFILE = Profile.model_validate(
    {
        "name": "Ada Quinn",
        "summary": (
            "Backend engineer with ten years of experience in payments and search. "
            "I have led small teams and like tidy systems."
        ),
        "skills": ["Python", "Kafka", "gRPC", "C++"],
        "experience": [
            {
                "title": "Staff Engineer",
                "company": "Hooli",
                "start": "2022-01",
                "end": "present",
                "location": "London, United Kingdom",
                "bullets": [
                    "Built a real-time fraud detection pipeline on Kafka that flags 2M card "
                    "payments a day.",
                    "Run the payments gateway that serves 100K+ QPS at peak.",
                    "Contributed to the gRPC framework's Python bindings.",
                    "Moved 50M+ ledger transactions a month onto the new ledger service.",
                ],
            },
            {
                "title": "Software Engineer",
                "company": "Google",
                "start": "2019-01",
                "end": "2020-01",
                "location": "Zürich, Switzerland",
                "bullets": ["Implemented search ranking experiments in C++ for 30 markets."],
            },
            {
                "title": "Software Engineering Intern",
                "company": "Google",
                "start": "2018-06",
                "end": "2018-09",
                "location": "Zürich, Switzerland",
                "bullets": ["Wrote load tests for the ads serving stack."],
            },
            {
                "title": "Developer",
                "company": "Pied Piper",
                "start": "2015-01",
                "end": "2018-05",
                "location": "Palo Alto, United States",
                "bullets": [
                    "Led a team of 4 engineers building the compression API.",
                    "Co-founded the company's open-source guild.",
                ],
            },
        ],
    }
)
FACTS = profile_facts(PROFILE)
BY_ID = {f.id: f for f in FACTS}
CONTEXT = ClaimContext(
    free_names=("Acme", "Principal Engineer"),
    today=date(2025, 9, 1),
    profile=tuple(f.text for f in FACTS if f.kind != "name"),
)


def fact(kind: str, contains: str) -> Fact:
    return next(f for f in FACTS if f.kind == kind and contains in f.text)


def hl(contains: str) -> Fact:
    return fact("highlight", contains)


HOOLI = fact("experience", "Hooli")
GOOGLE = fact("experience", "Software Engineer at Google")
INTERN = fact("experience", "Intern")
PIPER = fact("experience", "Pied Piper")
FRAUD = hl("fraud")
GATEWAY = hl("QPS")
GRPC = hl("gRPC")
LEDGER = hl("ledger")
RANKING = hl("ranking")
LOAD = hl("load tests")
TEAM = hl("team of 4")
GUILD = hl("guild")
YEARS = fact("summary", "ten years")


def check(text: str, *facts: Fact) -> list[Unsupported]:
    """``text`` citing ``facts``, their parents added as the document walk adds them."""
    cited = list(facts)
    cited += [BY_ID[f.parent] for f in facts if f.parent and BY_ID[f.parent] not in cited]
    return check_sentence(text, cited, CONTEXT)


def kinds(text: str, *facts: Fact) -> set[str]:
    return {u.kind for u in check(text, *facts)}


# -- a. a number and what it counts come from one fact ------------------------------------------


def test_a_number_fused_onto_another_facts_work_is_caught() -> None:
    found = check("Built a real-time fraud detection pipeline serving 100K+ QPS.", FRAUD, GATEWAY)
    assert Unsupported("fusion", "100K+ QPS") in found, found


def test_a_number_fused_onto_another_facts_work_in_a_letter_is_caught() -> None:
    text = "At Hooli I run the payments gateway, which flags 2M card payments a day."
    assert "fusion" in kinds(text, FRAUD, GATEWAY)


@pytest.mark.parametrize(
    "text",
    [
        "Built a real-time fraud detection pipeline that flags 2M card payments a day, and "
        "run the payments gateway that serves 100K+ QPS.",
        "I run a gateway serving 100K+ QPS and built a fraud detection pipeline on Kafka.",
        "Run a 100K+ QPS payments gateway; built a real-time fraud pipeline on Kafka.",
    ],
)
def test_two_facts_merged_each_number_with_its_own_words_pass(text: str) -> None:
    assert check(text, FRAUD, GATEWAY) == []


# -- b. an employer, title or place belongs to the entry of the work ----------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("At Hooli, I led a team of 4 engineers building the compression API.", "Hooli"),
        ("At Hooli, she led a team of 4 engineers building the compression API.", "Hooli"),
        ("As a Staff Engineer, I led a team of 4 engineers building the compression API.", ""),
        ("In London I led a team of 4 engineers building the compression API.", "London"),
    ],
)
def test_a_highlight_placed_at_another_entry_is_caught(text: str, name: str) -> None:
    found = check(text, TEAM, HOOLI)
    assert any(u.kind == "entry_name" and name in u.claim for u in found), found


@pytest.mark.parametrize(
    "text",
    [
        "At Pied Piper, I led a team of 4 engineers building the compression API.",
        "Before Hooli, I led a team of 4 engineers at Pied Piper building the compression API.",
        "I joined Hooli after leading a team of 4 engineers building the compression API.",
        "Today I am a Staff Engineer at Hooli; earlier I led a team of 4 engineers building "
        "the compression API.",
    ],
)
def test_an_entry_named_with_its_own_work_or_as_another_time_passes(text: str) -> None:
    assert "entry_name" not in kinds(text, TEAM, HOOLI)


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "I went from writing load tests for the ads serving stack at Google to running "
            "the payments gateway at Hooli.",
            (LOAD, GATEWAY),
        ),
        (
            "While a Software Engineer at Google I also wrote load tests for the ads serving "
            "stack.",
            (LOAD, GOOGLE),
        ),
        (
            "At Pied Piper, where I was a Developer, I led a team of 4 engineers building the "
            "compression API.",
            (TEAM,),
        ),
    ],
)
def test_each_entry_named_beside_its_own_work_passes(text: str, facts: tuple[Fact, ...]) -> None:
    assert check(text, *facts) == []


def test_the_job_applied_for_may_be_named_as_the_target() -> None:
    text = "I led a team of 4 engineers building the compression API and would bring that to Acme."
    assert check(text, TEAM) == []


# -- c. a duration is the named entry's, never the sum of the cited ones ------------------------


def test_a_duration_at_a_named_employer_is_not_summed_over_other_cited_entries() -> None:
    text = "Four years at Google taught me to ship search ranking experiments."
    found = check(text, RANKING, LOAD, TEAM)  # Google's two entries and Pied Piper's
    assert Unsupported("duration", "Four years") in found, found


@pytest.mark.parametrize(
    "text",
    [
        "A year at Google taught me to ship search ranking experiments.",
        "About a year at Google taught me to ship search ranking experiments.",
        "My first year at Google taught me to ship search ranking experiments.",
        "Three years at Pied Piper taught me to lead a team of 4 engineers.",
    ],
)
def test_a_true_duration_of_the_named_entry_passes(text: str) -> None:
    assert "duration" not in kinds(text, RANKING, LOAD, TEAM)


def test_about_two_years_is_not_thirteen_months() -> None:
    text = "About two years at Google taught me to ship search ranking experiments."
    assert "duration" in kinds(text, RANKING)


def test_years_of_experience_overall_still_cover_every_cited_entry() -> None:
    text = "Backend engineer with eight years of experience."
    assert check(text, HOOLI, GOOGLE, INTERN, PIPER) == []
    assert "duration" in kinds("Backend engineer with 12 years of experience.", HOOLI, PIPER)


# -- d. role verbs are graded -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "verbs"),
    [
        ("Contributed to the gRPC framework.", [(1, "Contributed")]),
        ("Helped build the gRPC framework.", [(1, "Helped")]),
        ("Built and owned the ledger.", [(2, "Built"), (3, "owned")]),
        ("Co-led the migration.", [(3, "Co-led")]),
        ("Lead a team of five and run the data guild.", [(3, "Lead"), (3, "run")]),
        ("Set up the company's data guild.", [(4, "Set")]),
        ("Co-founded the company's open-source guild.", [(4, "Co-founded")]),
        ("Drove a 4% lift in conversion.", []),
        ("Services running on Kubernetes.", []),
        ("An industry-leading team lead.", []),
    ],
)
def test_role_verbs_and_their_grades(text: str, verbs: list[tuple[int, str]]) -> None:
    assert [(v.grade, v.text) for v in graded_verbs(text)] == verbs


def test_a_fact_with_no_role_verb_allows_doing_the_work() -> None:
    assert fact_grade("Moved 25 nightly jobs from cron to Airflow.") == 2
    assert fact_grade("Contributed to the gRPC framework.") == 1


@pytest.mark.parametrize(
    "text",
    [
        "Led the open-source gRPC framework's Python bindings.",
        "Owned the gRPC framework's Python bindings.",
        "Built the gRPC framework's Python bindings.",
        "Co-led work on the gRPC framework's Python bindings.",
    ],
)
def test_a_higher_role_than_the_fact_is_caught(text: str) -> None:
    assert "grade" in kinds(text, GRPC)


@pytest.mark.parametrize(
    "text",
    [
        "Helped build the gRPC framework's Python bindings.",
        "Contributed to gRPC's Python bindings.",
        "Supported work on the gRPC framework's Python bindings.",
    ],
)
def test_a_lower_or_equal_role_passes(text: str) -> None:
    assert check(text, GRPC) == []


def test_grades_follow_the_fact_each_clause_restates() -> None:
    assert check("Helped build a real-time fraud detection pipeline on Kafka.", FRAUD) == []
    assert "grade" in kinds("Led a real-time fraud detection pipeline on Kafka.", FRAUD)
    # "led" is the team's fact; the gRPC clause keeps its own grade
    text = "Led a team of 4 engineers and led the gRPC framework's Python bindings."
    found = check(text, TEAM, GRPC)
    assert [u for u in found if u.kind == "grade"] == [Unsupported("grade", "led")], found


def test_co_founded_is_founded_and_a_guild_set_up_is_founding() -> None:
    assert "grade" not in kinds("Founded the company's open-source guild.", GUILD)
    assert "grade" in kinds("Set up the company's ranking guild.", RANKING)


# -- e. "about N" rounds the fact's value, adding no figure -------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Moved over 50M ledger transactions a month onto the new ledger service.",
        "Moved more than 50 million ledger transactions a month onto the new ledger service.",
        "Moved 50M+ ledger transactions a month onto the new ledger service.",
        "Moved about 50 million ledger transactions a month onto the new ledger service.",
    ],
)
def test_the_facts_own_precision_passes(text: str) -> None:
    assert check(text, LEDGER) == []


@pytest.mark.parametrize(
    "text",
    [
        "Moved about 55M ledger transactions a month onto the new ledger service.",
        "Moved roughly 60 million ledger transactions a month onto the new ledger service.",
    ],
)
def test_about_that_adds_a_figure_is_caught(text: str) -> None:
    assert "quantity" in kinds(text, LEDGER)


def test_about_rounds_to_fewer_figures() -> None:
    assert check("Implemented search ranking experiments for about 30 markets.", RANKING) == []
    text = "Implemented search ranking experiments for about 35 markets."
    assert "quantity" in kinds(text, RANKING)


# -- f. content words come from the cited facts or the profile ---------------------------------


def test_an_invented_bullet_citing_a_real_role_is_caught() -> None:
    text = "Negotiated vendor contracts and owned the annual hardware procurement budget."
    found = check(text, HOOLI)
    assert any(u.kind == "invented" and "procurement" in u.claim for u in found), found


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        # function words, ordinary verbs, paraphrase synonyms
        ("Built a Kafka pipeline that catches fraud in 2M card payments daily.", (FRAUD,)),
        ("I also wrote load tests for the ads serving stack at Google.", (LOAD,)),
        ("Shipped ranking experiments in C++ across 30 markets.", (RANKING,)),
        # a word another fact of the profile says
        ("Moved 50M+ ledger transactions a month onto a new service with compression.", (LEDGER,)),
    ],
)
def test_words_the_profile_says_pass(text: str, facts: tuple[Fact, ...]) -> None:
    assert check(text, *facts) == []


def test_a_clause_about_the_employer_or_the_future_claims_nothing() -> None:
    text = "I built a real-time fraud detection pipeline on Kafka, and I would love to apply "
    text += "that to your procurement and supplier platform."
    assert check(text, FRAUD) == []


# -- g. what a held-out profile showed (a public JSON Resume, tests/unit/truth_corpus/thomas) ---

WEB = Profile.model_validate(
    {
        "name": "Tom Dee",
        "skills": ["JavaScript", "AWS", "Heroku"],
        "experience": [
            {
                "title": "Senior JavaScript Developer",
                "company": "Tokenized",
                "start": "2020-05",
                "end": "present",
                "bullets": [
                    "Built the front end of a Bitcoin wallet for issuing, managing and trading "
                    "digital tokens, packaged as an Electron app.",
                ],
            },
            {
                "title": "Senior JavaScript Developer",
                "company": "Blockbid",
                "start": "2018-03",
                "end": "2020-01",
                "bullets": [
                    "Connected the platforms of liquidity providers to the exchange.",
                    "Built with React and Apollo on Node.js and Rails.",
                ],
            },
            {
                "title": "CTO",
                "company": "Earbits",
                "start": "2013-03",
                "end": "2015-01",
                "bullets": ["Transferred all of the infrastructure from Heroku to AWS."],
            },
            {
                "title": "Co-Founder",
                "company": "cdnjs",
                "start": "2011-01",
                "end": "present",
                "bullets": [
                    "Co-founded a community-moderated, open-source CDN for JavaScript libraries.",
                    "Serves hundreds of billions of requests a month to millions of sites, from "
                    "over 3000 libraries.",
                ],
            },
            {
                "title": "Developer",
                "company": "Taskforce",
                "start": "2013-06",
                "end": "2016-01",
                "bullets": [
                    "Generated 37,000,000 banner views and tens of thousands of signatures from "
                    "users."
                ],
            },
        ],
    }
)
WEB_FACTS = profile_facts(WEB)
WEB_BY_ID = {f.id: f for f in WEB_FACTS}
WEB_CONTEXT = ClaimContext(
    free_names=("Canva", "Senior Frontend Engineer"),
    today=date(2025, 9, 1),
    profile=tuple(f.text for f in WEB_FACTS if f.kind != "name"),
)


def web(text: str, *contains: str) -> list[Unsupported]:
    """``text`` citing the highlights of WEB that contain each of ``contains``."""
    facts = [next(f for f in WEB_FACTS if f.kind == "highlight" and c in f.text) for c in contains]
    facts += [WEB_BY_ID[f.parent] for f in facts if f.parent]
    return check_sentence(text, facts, WEB_CONTEXT)


def test_an_appositive_naming_the_entry_is_no_fusion() -> None:
    """A fact about the entry itself ("Serves …") sits beside what another highlight of
    the entry calls it ("an open-source CDN"); a number from another entry does not."""
    cdn, serves = "community-moderated", "hundreds of billions"
    text = "I co-founded cdnjs, an open-source CDN that serves hundreds of billions of "
    assert web(text + "requests a month from over 3000 libraries.", cdn, serves) == []
    text = "The cdnjs CDN I co-founded serves hundreds of billions of requests a month."
    assert web(text, cdn, serves) == []
    text = "I co-founded cdnjs, an open-source CDN with tens of thousands of users."
    assert "fusion" in {u.kind for u in web(text, cdn, "signatures")}


def test_a_gerund_in_a_list_of_uses_is_no_role_verb() -> None:
    wallet = "Built the front end of a Bitcoin wallet for issuing, managing and trading tokens."
    assert fact_grade(wallet) == 2
    assert graded_verbs("A wallet used to issue, manage and trade tokens.") == ()
    assert [v.text for v in graded_verbs("Responsible for managing and mentoring a team.")] == [
        "managing"
    ]
    assert [v.text for v in graded_verbs("I used to manage and mentor a team.")] == ["manage"]
    found = web("At Tokenized I led the front end of a Bitcoin wallet.", "Bitcoin")
    assert [u.claim for u in found if u.kind == "grade"] == ["led"]


def test_about_rounds_up_by_a_twentieth_at_most() -> None:
    assert "quantity" in {u.kind for u in web("Generated about 40 million banner views.", "banner")}
    assert web("Generated about 37 million banner views.", "banner") == []
    assert check("Implemented search ranking experiments for about 30 markets.", RANKING) == []


def test_an_entry_name_is_held_to_work_known_by_its_tools() -> None:
    text = "At Blockbid I moved all of the infrastructure from Heroku to AWS."
    found = web(text, "liquidity", "Heroku to AWS")
    assert [u.claim for u in found if u.kind == "entry_name"] == ["Blockbid"]
    text = "At Earbits I moved all of the infrastructure from Heroku to AWS."
    assert web(text, "liquidity", "Heroku to AWS") == []


def test_a_lower_case_word_inside_an_alias_keeps_the_alias_whole() -> None:
    assert web("Built with React and Apollo on Node and Ruby on Rails.", "Apollo") == []
    found = web("Built with React and Apollo on Node and Ruby.", "Apollo")
    assert [u.claim for u in found] == ["Ruby"]


@pytest.mark.parametrize(
    ("text", "contains"),
    [
        ("Serves hundreds of billions of requests a month to millions of websites.", "Serves"),
        ("Generated tens of thousands of signatures from people.", "banner"),
        ("Moved the infrastructure from Heroku to AWS, inside a year if possible.", "Heroku"),
    ],
)
def test_synonyms_and_function_words_the_held_out_profile_used(text: str, contains: str) -> None:
    assert web(text, contains) == []


def test_a_clause_about_what_the_reader_asks_for_claims_nothing() -> None:
    text = "You ask for Kafka and GCP: at Earbits I moved the infrastructure from Heroku to AWS."
    assert web(text, "Heroku") == []
    text = "You ask for Kafka: at Earbits I moved the infrastructure from Heroku to Kafka."
    assert [u.claim for u in web(text, "Heroku")] == ["Kafka"]


# -- h. the greeting and closing: no claim about the writer -------------------------------------

GREETING = ClaimContext(free_names=("Acme Logistics", "Senior Backend Engineer"))


def test_a_greeting_that_says_who_the_writer_is_is_held_to_the_free_names() -> None:
    found = check_sentence("Dear Acme Logistics team, as a Google veteran,", [], GREETING)
    assert [(u.kind, u.claim) for u in found] == [("name", "Google")]
    text = "Dear Acme Logistics team, as an engineer with 10 years of Kafka,"
    assert {u.kind for u in check_sentence(text, [], GREETING)} >= {"duration", "tool"}


@pytest.mark.parametrize(
    "text",
    [
        "Dear Dr. Akiba,",
        "Dear Acme Logistics hiring team,",
        "Your posting describes the role as a mix of Kafka and Go.",
        "Kind regards,",
    ],
)
def test_a_greeting_to_the_reader_still_passes(text: str) -> None:
    assert check_sentence(text, [], GREETING) == []


# -- i. verbs and gerunds are no tools ----------------------------------------------------------


def test_hiring_and_a_british_participle_are_no_tools() -> None:
    hired = Fact("h1", "highlight", "Hired 14 engineers and ran their interviews.")
    found = check_sentence("Ran the hiring and interviews of 14 engineers.", [hired], CONTEXT)
    assert "tool" not in {u.kind for u in found}, found
    fast = Fact(
        "h2", "highlight", "Made the release pipeline 3× faster with Fastlane and UI tests."
    )
    text = "Made the release pipeline 3× faster with Fastlane and parallelised UI tests."
    assert "tool" not in {u.kind for u in check_sentence(text, [fast], CONTEXT)}
    text = "Made the release pipeline 3× faster with Fastlane, vitest and UI tests."
    assert [u.claim for u in check_sentence(text, [fast], CONTEXT)] == ["vitest"]
