"""Sébastien Lefèvre, an engineering manager in Berlin, applying to Personio. His profile
writes dates as "Mar 2021" / "Present", "2017", "09/2013"."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("sebastien")

SPEC = Spec(
    profile="sebastien",
    company="Personio",
    role="Senior Engineering Manager, Payroll",
    headline=cite("Engineering Manager · payments and backend teams", "exp0", "sum0"),
    extras=(
        cite("Promoted 4 engineers to senior and 2 to team lead at Zalando", "exp0.hl1"),
        cite("Introduced quarterly OKRs across 4 teams at BlaBlaCar", "exp1.hl2"),
    ),
    greeting="Dear Personio team,",
    letter=(
        (
            cite("I am applying for the Senior Engineering Manager, Payroll role at Personio."),
            cite(
                "I have 12 years in software and have spent the last four leading backend and "
                "payments teams of up to 22 engineers, currently as Engineering Manager at "
                "Zalando.",
                "sum0",
                "exp0",
            ),
        ),
        (
            cite(
                "At Zalando I manage three teams (22 engineers) that own checkout payments, "
                "processing €1.8B in gross merchandise value a year.",
                "exp0.hl0",
            ),
            cite(
                "We cut payment-service incidents by 45% year over year after I introduced "
                "SLOs, on-call reviews and error budgets.",
                "exp0.hl2",
            ),
            cite(
                "In 2022 I hired 14 engineers, and I have promoted 4 engineers to senior and 2 "
                "to team lead.",
                "exp0.hl1",
            ),
        ),
        (
            cite(
                "Before Zalando I led the 7-person search team at BlaBlaCar, where we rebuilt "
                "trip search in Go and brought p99 latency from 1.2 s to 250 ms.",
                "exp1.hl0",
                "exp0",
            ),
            cite(
                "I started as a software engineer at Criteo, building bidding services in Java "
                "that handled 2 million requests per second at peak.",
                "exp2.hl0",
            ),
        ),
        (
            cite(
                "Payroll is a domain where predictable delivery without heroics matters, and "
                "that is how I run teams.",
                "sum1",
            ),
            cite(
                "Thank you for your consideration; I am happy to talk in English, German or "
                "French.",
                "sum2",
            ),
        ),
    ),
    table=T,
)

# -- fabrications: the resume ----------------------------------------------------------------
T.lie(
    "resume",
    "title",
    "headline",
    "VP of Engineering was never his title",
    Put("headline", cite("VP of Engineering · payments", "exp0")),
)
T.lie(
    "resume",
    "years",
    "headline",
    "15 years in software (12 in the profile)",
    Put("headline", cite("Engineering Manager · 15 years in software", "exp0", "sum0")),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "12 years become 15",
    Sub("summary[0]", "12 years in software", "15 years in software"),
)
T.lie(
    "resume",
    "quantity_swap",
    "summary[0]",
    "teams of up to 22 become up to 30 (the Java services he moved)",
    Sub("summary[0]", "up to 22 engineers", "up to 30 engineers"),
)
T.lie(
    "resume",
    "claim",
    "summary[2]",
    "Mandarin added to the languages",
    Sub("summary[2]", "French, German and English.", "French, German, English and Mandarin."),
)
T.lie(
    "resume",
    "uncited",
    "summary[3]",
    "an uncited Amazon Bar Raiser claim",
    Add("summary", cite("Former Amazon Bar Raiser for engineering hiring.")),
)
T.lie(
    "resume",
    "skill",
    "skills[12]",
    "Scala is not in the profile",
    Add("skills", "Scala"),
)
T.lie(
    "resume",
    "skill",
    "skills[6]",
    "Backstage is not in the profile (a tool outside any vocabulary)",
    Add("skills", "Backstage", at=6),
)
T.lie(
    "resume",
    "title",
    "experience[0].title",
    "the posting's title copied into his current role",
    Put("experience[0].title", "Senior Engineering Manager"),
)
T.lie(
    "resume",
    "employer",
    "experience[1].company",
    "BlaBlaCar becomes Doctolib",
    Put("experience[1].company", "Doctolib"),
)
T.lie(
    "resume",
    "dates",
    "experience[1].start",
    "BlaBlaCar from 2015, overlapping Criteo",
    Put("experience[1].start", "2015"),
)
T.lie(
    "resume",
    "dates",
    "experience[0].start",
    "Zalando from Mar 2019",
    Put("experience[0].start", "Mar 2019"),
)
T.lie(
    "resume",
    "employer",
    "experience[1]",
    "an N26 role inserted between Zalando and BlaBlaCar, citing BlaBlaCar",
    Add(
        "experience",
        {
            "fact": "exp1",
            "title": "Engineering Manager",
            "company": "N26",
            "start": "2021",
            "end": "2021",
            "location": "Berlin, Germany",
            "bullets": [cite("Managed the payments team of 8 engineers.", "exp0.hl0")],
        },
        at=1,
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "€1.8B becomes €18B",
    Sub("experience[0].bullets[0]", "€1.8B", "€18B"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[0]",
    "€1.8B becomes $1.8B (another currency)",
    Sub("experience[0].bullets[0]", "€1.8B", "$1.8B"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[1]",
    "14 hired become 22 (the team size of the same role)",
    Sub("experience[0].bullets[1]", "Hired 14 engineers", "Hired 22 engineers"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[1]",
    "4 promoted to senior become 14 (the same line's hires)",
    Sub("experience[0].bullets[1]", "promoted 4 engineers", "promoted 14 engineers"),
)
T.lie(
    "resume",
    "number_word",
    "experience[0].bullets[2]",
    "incidents cut by seventy percent, not 45%",
    Sub("experience[0].bullets[2]", "by 45%", "by seventy percent"),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[3]",
    "an Istio service mesh appended",
    Sub(
        "experience[0].bullets[3]",
        "with no customer-facing downtime.",
        "with no customer-facing downtime, behind an Istio service mesh.",
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[1].bullets[0]",
    "a 7-person team becomes 17",
    Sub("experience[1].bullets[0]", "the 7-person search team", "the 17-person search team"),
)
T.lie(
    "resume",
    "quantity",
    "experience[1].bullets[0]",
    "p99 down to 25 ms, not 250 ms",
    Sub("experience[1].bullets[0]", "to 250 ms", "to 25 ms"),
)
T.lie(
    "resume",
    "award",
    "experience[1].bullets[1]",
    "an engineering award appended to the migration",
    Sub(
        "experience[1].bullets[1]",
        "with the platform team.",
        "with the platform team; the project won BlaBlaCar's Engineering Excellence Award.",
    ),
)
T.lie(
    "resume",
    "claim",
    "experience[1].bullets[2]",
    "a promotion to Head of Engineering appended",
    Sub(
        "experience[1].bullets[2]",
        "across 4 teams.",
        "across 4 teams and was promoted to Head of Engineering.",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[2].bullets[1]",
    "the in-house cache replaced with Redis, not Caffeine",
    Sub("experience[2].bullets[1]", "with Caffeine", "with Redis"),
)
T.lie(
    "resume",
    "unit",
    "experience[2].bullets[0]",
    "2 million requests per second become 2 billion",
    Sub("experience[2].bullets[0]", "2 million requests", "2 billion requests"),
)
T.lie(
    "resume",
    "moved",
    "experience[1].bullets[3]",
    "the Zalando SLO highlight placed under BlaBlaCar",
    Add(
        "experience[1].bullets",
        cite(
            "Cut payment-service incidents by 45% year over year by introducing SLOs, on-call "
            "reviews and error budgets.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "resume",
    "school",
    "education[0].institution",
    "INSA Lyon becomes École Polytechnique",
    Put("education[0].institution", "École Polytechnique"),
)
T.lie(
    "resume",
    "degree",
    "education[1]",
    "an INSEAD MBA",
    Add(
        "education",
        {
            "fact": "edu0",
            "institution": "INSEAD",
            "degree": "MBA",
            "field": "",
            "start": "2019",
            "end": "2020",
        },
    ),
)
T.lie(
    "resume",
    "certification",
    "extras[2]",
    "a Certified Scrum Master line citing the Agile skill",
    Add("extras", cite("Certified Scrum Master (CSM), Scrum Alliance", "skill:Agile")),
)
T.lie(
    "resume",
    "uncited",
    "extras[2]",
    "an uncited conference talk",
    Add("extras", cite("Speaker at QCon London 2023 on payments reliability")),
)

# -- fabrications: the letter ----------------------------------------------------------------
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "12 years become fifteen",
    Sub("paragraphs[0].sentences[1]", "I have 12 years", "I have fifteen years"),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[0].sentences[1]",
    "teams of up to 22 become an organisation of 60",
    Sub(
        "paragraphs[0].sentences[1]",
        "teams of up to 22 engineers",
        "an organisation of 60 engineers",
    ),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[1].sentences[0]",
    "Amazon slipped in before Zalando",
    Sub(
        "paragraphs[1].sentences[0]",
        "At Zalando I manage",
        "At Zalando, and before that at Amazon, I manage",
    ),
)
T.lie(
    "letter",
    "dates",
    "paragraphs[1].sentences[2]",
    "the hires moved to 2021",
    Sub("paragraphs[1].sentences[2]", "In 2022 I hired", "In 2021 I hired"),
)
T.lie(
    "letter",
    "title",
    "paragraphs[2].sentences[0]",
    "Director of Engineering at BlaBlaCar",
    Sub(
        "paragraphs[2].sentences[0]",
        "the 7-person search team at BlaBlaCar,",
        "the 7-person search team as Director of Engineering at BlaBlaCar,",
    ),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[2].sentences[1]",
    "Aerospike appended to the Criteo sentence",
    Sub(
        "paragraphs[2].sentences[1]",
        "at peak.",
        "at peak on Aerospike.",
    ),
)
T.lie(
    "letter",
    "duration",
    "paragraphs[2].sentences[1]",
    "five years at Criteo (09/2013 to 12/2016)",
    Sub(
        "paragraphs[2].sentences[1]",
        "I started as a software engineer at Criteo,",
        "I spent five years as a software engineer at Criteo,",
    ),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[3].sentences[2]",
    "an uncited Stanford leadership certificate",
    Add(
        "paragraphs[3].sentences",
        cite("I also hold a Stanford GSB certificate in leadership."),
    ),
)
T.lie(
    "letter",
    "award",
    "paragraphs[1].sentences[1]",
    "an award for the incident work",
    Sub(
        "paragraphs[1].sentences[1]",
        "and error budgets.",
        "and error budgets, which earned my team Zalando's Tech Excellence Award.",
    ),
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "subset",
    "Criteo dropped, management skills first",
    Keep("experience", (0, 1)),
    Keep("skills", (0, 1, 9, 10, 11, 3, 5)),
)
T.ok(
    "resume",
    "dates",
    "the profile's dates normalised: '2021-03', 'present', '2013-09', '2016-12'",
    Put("experience[0].start", "2021-03"),
    Put("experience[0].end", "present"),
    Put("experience[2].start", "2013-09"),
    Put("experience[2].end", "2016-12"),
)
T.ok(
    "resume",
    "dates",
    "dates as 'March 2021', 'Sep 2013 – Dec 2016'",
    Put("experience[0].start", "March 2021"),
    Put("experience[2].start", "Sep 2013"),
    Put("experience[2].end", "Dec 2016"),
)
T.ok(
    "resume",
    "alias",
    "skills by alias: Golang, K8s, Postgres, Apache Kafka, Amazon Web Services",
    Put(
        "skills",
        [
            "People management",
            "Hiring",
            "Java",
            "Kotlin",
            "Golang",
            "K8s",
            "Amazon Web Services",
            "Postgres",
            "Apache Kafka",
        ],
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "highlights in the first person",
    Put(
        "experience[0].bullets[3]",
        cite(
            "I led the move of 30 Java services to Kotlin on Kubernetes without customer-facing "
            "downtime.",
            "exp0.hl3",
        ),
    ),
    Put(
        "experience[1].bullets[2]",
        cite("I introduced quarterly OKRs across four teams.", "exp1.hl2"),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "€1.8B as EUR 1.8 billion, 22 as twenty-two, 2 million as 2M",
    Sub(
        "experience[0].bullets[0]",
        "three teams (22 engineers)",
        "three teams (twenty-two engineers)",
    ),
    Sub("experience[0].bullets[0]", "€1.8B", "EUR 1.8 billion"),
    Sub("experience[2].bullets[0]", "2 million", "2M"),
)
T.ok(
    "letter",
    "merge",
    "hiring and the Kotlin move in one sentence",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "In 2022 I hired 14 engineers while leading the move of 30 Java services to Kotlin "
            "on Kubernetes.",
            "exp0.hl1",
            "exp0.hl3",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "both management roles with their years",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I led the search team at BlaBlaCar from 2017 to 2021 and have managed payments "
            "teams at Zalando since March 2021.",
            "exp1",
            "exp0",
            "sum0",
        ),
    ),
)
T.ok(
    "letter",
    "years",
    "years in software as a word",
    Sub("paragraphs[0].sentences[1]", "I have 12 years", "I have twelve years"),
)
T.ok(
    "resume",
    "dates",
    "the headline with a 'Mar 2021–present' range",
    Put("headline", cite("Engineering Manager, Zalando (Mar 2021–present)", "exp0")),
)
T.ok(
    "resume",
    "paraphrase",
    "the languages as a labelled extras line",
    Add("extras", cite("Languages: French, German, English", "sum2"), at=0),
)
T.ok(
    "letter",
    "quantity_form",
    "€1.8B written as 1.8 billion euros",
    Sub("paragraphs[1].sentences[0]", "processing €1.8B", "processing 1.8 billion euros"),
)
T.lie(
    "resume",
    "number_word",
    "experience[0].bullets[0]",
    "22 engineers become two hundred",
    Sub("experience[0].bullets[0]", "(22 engineers)", "(two hundred engineers)"),
)

# -- a second held-out set: new wordings, first run once against the checker --------------
T.ok(
    "resume",
    "paraphrase",
    "the incidents highlight with its cause first",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Introduced SLOs, on-call reviews and error budgets; payment-service incidents "
            "fell 45% year over year.",
            "exp0.hl2",
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the hiring sentence with number words",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "I hired fourteen engineers in 2022, and promoted four people to senior and two to "
            "team lead.",
            "exp0.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[2]",
    "incidents fell 54%, not 45%, in a reworded bullet",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Introduced SLOs, on-call reviews and error budgets; payment-service incidents "
            "fell 54% year over year.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "number_word",
    "paragraphs[1].sentences[2]",
    "forty engineers hired, not fourteen",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "I hired forty engineers in 2022, and promoted four people to senior and two to "
            "team lead.",
            "exp0.hl1",
        ),
    ),
)
