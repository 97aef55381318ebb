"""Truthful answers a careful model writes (issue 27): heavy paraphrase on the first six profiles,
each true to the facts it cites, and the check must find nothing in any of them.

They restate what the profile says in other words: numbers spelled out or with another
magnitude ("over fifty million", "100,000", "2M RPS"), "N+" as "more than N", a change
written "from forty-eight to nineteen megabytes", degrees spelled out ("Master of Science",
"Bachelor's degree", "Doctor of Philosophy"), abbreviations for their words (MTTR, GMV, SSR,
NER, K8s), what a number counts ending before its verb ("a library 35 product teams build
on"), claim words by their near-synonyms ("took first place" for "won", "headed" for "led",
"became certified" for "earned the certification"), merged bullets that stay true, and
letter sentences about the posting, the role or the company, and greetings to a named
reader, which claim nothing about the candidate.

The seven refusals of the issue's measure, each adapted to a profile's real facts: the
counted noun before its verb (``counted_verb``), a master's or a doctorate spelled out
(``degree_spelled``), a bachelor's written generically or spelled out (``degree_generic``),
a range or change in words (``range``), a rate or an "N+" restated (``at_least``), a claim
word for its synonym (``claim_synonym``: none of these profiles founded a company, so
"founding" for "starting" is tested in test_claims; here "took first place" for "won",
"headed" for "led", "became a Certified … Administrator" for "earned the … certification"),
and an uncited sentence about the posting (``about_job``).
"""

from __future__ import annotations

from tests.unit.truth_corpus import agnieszka, chiamaka, hang, luisa, sebastien, sebnem
from tests.unit.truth_corpus.corpus import Add, Put, cite

# -- Agnieszka: data engineer at Allegro, applying to Snowplow ---------------------------------
A = agnieszka.SPEC.table
A.ok(
    "resume",
    "at_least",
    "50M+ events a day as 'over fifty million … daily', under 2 minutes as 'under two'",
    Put(
        "experience[0].bullets[1]",
        cite(
            "Built a streaming pipeline on Kafka and Spark Structured Streaming that ingests "
            "over fifty million clickstream events daily, end to end in under two minutes.",
            "exp0.hl1",
        ),
    ),
)
A.ok(
    "resume",
    "range",
    "from 11 to 2 per quarter as 'from eleven to two a quarter', introduced as rolled out",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Rolled out data contracts and Great Expectations checks across 140 core tables; "
            "broken-dashboard incidents fell from eleven to two a quarter.",
            "exp0.hl2",
        ),
    ),
)
A.ok(
    "resume",
    "counted_verb",
    "a guild that 60 people attend (the number counts people, not 'people attend')",
    Put(
        "experience[0].bullets[3]",
        cite(
            "Lead five data engineers and run a monthly data guild that 60 people attend.",
            "exp0.hl3",
        ),
    ),
)
A.ok(
    "resume",
    "degree_spelled",
    "MSc spelled out as Master of Science",
    Put("education[0].degree", "Master of Science"),
)
A.ok(
    "resume",
    "claim_synonym",
    "led as headed, cutting as reducing, cost as spend",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Headed the migration of 1,200 Airflow DAGs off an on-premise Hadoop cluster onto "
            "BigQuery and Cloud Composer, reducing monthly infrastructure spend by 38%.",
            "exp0.hl0",
        ),
    ),
)
A.ok(
    "resume",
    "alias",
    "anti-money-laundering as AML, 3 million a night as three million nightly",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Designed the Scala and Spark jobs that reconcile three million card transactions "
            "nightly for the AML team.",
            "exp1.hl0",
        ),
    ),
)
A.ok(
    "resume",
    "range",
    "the ETL window from six hours to ninety minutes, the clauses reordered",
    Put(
        "experience[2].bullets[1]",
        cite(
            "Replaced row-by-row cursors with set-based SQL, shortening the nightly ETL window "
            "from six hours to ninety minutes.",
            "exp2.hl1",
        ),
    ),
)
A.ok(
    "letter",
    "about_job",
    "an uncited sentence on what the role calls for",
    Add(
        "paragraphs[2].sentences",
        cite("The role calls for Kafka, dbt and Terraform, and for care about data quality."),
        at=1,
    ),
)
A.ok(
    "letter",
    "at_least",
    "more than 50 million as upwards of 50 million, under two minutes as below",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Allegro I built a Kafka and Spark Structured Streaming pipeline that ingests "
            "upwards of 50 million clickstream events every day, with end-to-end latency below "
            "two minutes.",
            "exp0.hl1",
        ),
    ),
)
A.ok(
    "letter",
    "degree_spelled",
    "the master's spelled out, merged with the years of experience",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "After a Master of Science in Computer Science at AGH University of Krakow, I spent "
            "eight years building batch and streaming pipelines on Google Cloud and AWS.",
            "edu0",
            "sum0",
        ),
    ),
)
A.ok(
    "letter",
    "range",
    "from 91% to 99.5% as 'from 91 to 99.5 percent', twenty-five jobs in words",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "Before that, at ING Hubs Poland, I moved twenty-five nightly batch jobs off cron "
            "onto Airflow and lifted on-time delivery from 91 to 99.5 percent.",
            "exp1.hl1",
        ),
    ),
)
A.ok(
    "letter",
    "counted_verb",
    "the guild that sixty people attend, merged with the summary",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "Today I lead five data engineers and host a monthly data guild that sixty people "
            "attend, and I enjoy teaching SQL to analysts.",
            "exp0.hl3",
            "sum2",
        ),
    ),
)
A.ok(
    "letter",
    "about_job",
    "a greeting to a named reader and another closing",
    Put("greeting", "Dear Ms. Nowak and the Snowplow data team,"),
    Put("closing", "With thanks,"),
)

# -- Chiamaka: mobile engineer at Monzo, applying to Revolut ----------------------------------
C = chiamaka.SPEC.table
C.ok(
    "resume",
    "at_least",
    "1M+ downloads as more than a million, a team of six as a six-person team",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Led a six-person team building the React Native merchant app, which went on to "
            "more than a million downloads.",
            "exp1.hl0",
        ),
    ),
)
C.ok(
    "resume",
    "range",
    "48 MB to 19 MB as 'from forty-eight to nineteen megabytes'",
    Put(
        "experience[1].bullets[1]",
        cite(
            "Shrank the Android app from forty-eight to nineteen megabytes using app bundles "
            "and R8.",
            "exp1.hl1",
        ),
    ),
)
C.ok(
    "resume",
    "counted_verb",
    "screens that 9 million customers use",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Rebuilt, in SwiftUI, the card-freeze and spending-limit screens that 9 million "
            "customers use.",
            "exp0.hl0",
        ),
    ),
)
C.ok(
    "resume",
    "degree_generic",
    "BSc written as Bachelor of Science",
    Put("education[0].degree", "Bachelor of Science"),
)
C.ok(
    "resume",
    "claim_synonym",
    "raised as improved, 3× faster as tripled",
    Put(
        "experience[0].bullets[2]",
        cite("Improved crash-free sessions from 99.2% to 99.85% across four releases.", "exp0.hl2"),
    ),
    Put(
        "experience[2].bullets[2]",
        cite(
            "Tripled the speed of the release pipeline with Fastlane and parallel UI tests.",
            "exp2.hl2",
        ),
    ),
)
C.ok(
    "resume",
    "merge",
    "cold start and crash-free sessions in one bullet, seconds spelled out",
    Put(
        "experience[0].bullets",
        [
            cite(
                "Brought cold start down from 2.4 to 1.1 seconds by deferring SDK "
                "initialisation, and lifted crash-free sessions from 99.2% to 99.85% over four "
                "releases.",
                "exp0.hl1",
                "exp0.hl2",
            ),
            cite("Mentor two junior engineers through Monzo's progression framework.", "exp0.hl3"),
        ],
    ),
)
C.ok(
    "letter",
    "degree_generic",
    "a sentence on the bachelor's, spelled out",
    Add(
        "paragraphs[0].sentences",
        cite(
            "I hold a Bachelor of Science in Computer Science from the University of Lagos.",
            "edu0",
        ),
    ),
)
C.ok(
    "letter",
    "at_least",
    "1M downloads as 'a million downloads', six as a six-person team",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "Before that I led a six-person team at Paystack building the merchant app in React "
            "Native, which passed a million downloads.",
            "exp1.hl0",
        ),
    ),
)
C.ok(
    "letter",
    "about_job",
    "an uncited sentence on what the posting asks for",
    Add(
        "paragraphs[1].sentences",
        cite("Your posting asks for SwiftUI, accessibility and small, frequent releases."),
        at=0,
    ),
)
C.ok(
    "letter",
    "range",
    "9 million as nine million, cold start from 2.4 to 1.1 seconds",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Monzo I rebuilt the card-freeze and spending-limit screens in SwiftUI for nine "
            "million customers and brought cold start down from 2.4 to 1.1 seconds.",
            "exp0.hl0",
            "exp0.hl1",
        ),
    ),
)
C.ok(
    "letter",
    "counted_verb",
    "payment-link sharing that 40,000 merchants took up in its first month",
    Add(
        "paragraphs[1].sentences",
        cite(
            "I also built offline payment-link sharing that 40,000 merchants took up in its "
            "first month.",
            "exp1.hl2",
        ),
    ),
)

# -- Luísa: frontend engineer at Farfetch, applying to Typeform -------------------------------
L = luisa.SPEC.table
L.ok(
    "resume",
    "counted_verb",
    "a component library that 35 product teams build on",
    Put(
        "experience[0].bullets[1]",
        cite(
            "Lead the design-system team of four engineers and two designers, owning a "
            "component library that 35 product teams build on.",
            "exp0.hl1",
        ),
    ),
)
L.ok(
    "resume",
    "alias",
    "Largest Contentful Paint as LCP, server-side rendering as SSR",
    Put(
        "experience[0].bullets[2]",
        cite("Cut the product page's LCP from 3.8 to 1.9 seconds with Next.js SSR.", "exp0.hl2"),
    ),
)
L.ok(
    "resume",
    "at_least",
    "€400k a year as €400,000 annually",
    Put(
        "experience[0].bullets[3]",
        cite(
            "Saved €400,000 annually on CDN costs by moving product images to an AVIF pipeline.",
            "exp0.hl3",
        ),
    ),
)
L.ok(
    "resume",
    "counted_verb",
    "a limit flow that 12 million customers use",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Built the React Native screens for a credit-card limit flow that 12 million "
            "customers use.",
            "exp1.hl0",
        ),
    ),
)
L.ok(
    "resume",
    "claim_synonym",
    "won the hackathon as took first place",
    Put(
        "experience[2].bullets[2]",
        cite(
            "Took first place at the company's 2018 hackathon with a prototype of the email "
            "editor.",
            "exp2.hl2",
        ),
    ),
)
L.ok(
    "resume",
    "degree_generic",
    "Bachelor as Bachelor's degree",
    Put("education[0].degree", "Bachelor's degree"),
)
L.ok(
    "resume",
    "degree_generic",
    "Bachelor in Design as Bachelor of Design, the field in the degree",
    Put("education[0].degree", "Bachelor of Design"),
    Put("education[0].field", ""),
)
L.ok(
    "resume",
    "range",
    "from 35% to 80% as 'from thirty-five to eighty percent'",
    Put(
        "experience[1].bullets[2]",
        cite(
            "Raised unit-test coverage of the web app from thirty-five to eighty percent with "
            "Jest and Testing Library.",
            "exp1.hl2",
        ),
    ),
)
L.ok(
    "letter",
    "degree_generic",
    "a sentence on the bachelor's degree",
    Add(
        "paragraphs[2].sentences",
        cite("I hold a Bachelor's degree in Design from the Universidade de São Paulo.", "edu0"),
    ),
)
L.ok(
    "letter",
    "about_job",
    "an uncited sentence on what the role calls for",
    Add(
        "paragraphs[0].sentences",
        cite("The role calls for React, TypeScript and a design-systems background."),
        at=1,
    ),
)
L.ok(
    "letter",
    "counted_verb",
    "the library 35 product teams rely on",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Farfetch I lead the design-system team of four engineers and two designers, "
            "whose component library 35 product teams rely on.",
            "exp0.hl1",
        ),
    ),
)
L.ok(
    "letter",
    "claim_synonym",
    "rebuilt as re-architected, lifted as increased",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I re-architected the checkout in React and TypeScript, which increased mobile "
            "conversion by 4.2% across 190 countries.",
            "exp0.hl0",
        ),
    ),
)

# -- Hằng: speech researcher at Preferred Networks, applying to Sakana AI ---------------------
H = hang.SPEC.table
H.ok(
    "resume",
    "degree_spelled",
    "PhD and BEng spelled out",
    Put("education[0].degree", "Doctor of Philosophy"),
    Put("education[1].degree", "Bachelor of Engineering"),
)
H.ok(
    "resume",
    "quantity_form",
    "3 researchers and 40,000 hours in words",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Lead three researchers training Japanese speech recognition models on forty "
            "thousand hours of audio, cutting character error rate by 18% relative.",
            "exp0.hl0",
        ),
    ),
)
H.ok(
    "resume",
    "alias",
    "named-entity recognition as NER",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Built PhoBERT-based NER models for Vietnamese, reaching 94.7 F1 on the VLSP 2016 "
            "benchmark.",
            "exp1.hl0",
        ),
    ),
)
H.ok(
    "resume",
    "range",
    "'3 of whom' as 'three of the five'",
    Put(
        "experience[1].bullets[2]",
        cite(
            "Mentored five research residents; three of the five went on to PhD programmes.",
            "exp1.hl2",
        ),
    ),
)
H.ok(
    "resume",
    "claim_synonym",
    "published as authored, a finalist as shortlisted for the award",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Authored four papers at Interspeech and ICASSP, one of them shortlisted for the "
            "Interspeech 2023 best paper award.",
            "exp0.hl2",
        ),
    ),
)
H.ok(
    "resume",
    "degree_spelled",
    "the summary with 'Ph.D.' and the years reordered",
    Put(
        "summary[0]",
        cite(
            "Machine learning researcher (Ph.D., information science) with six years of industry "
            "research in speech and language models.",
            "sum0",
        ),
    ),
)
H.ok(
    "letter",
    "degree_spelled",
    "the PhD as a doctorate",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I am a machine learning researcher with a doctorate in information science from "
            "The University of Tokyo and six years of industry research in speech and language "
            "models.",
            "sum0",
            "edu0",
        ),
    ),
)
H.ok(
    "letter",
    "about_job",
    "an uncited sentence on the role, and a greeting to a named reader",
    Add(
        "paragraphs[0].sentences",
        cite("The role calls for PyTorch and JAX, and for research that reaches production."),
        at=1,
    ),
    Put("greeting", "Dear Dr. Akiba and the Sakana AI team,"),
)
H.ok(
    "letter",
    "quantity_form",
    "1.3B and 350M parameters in words",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I also trained a 1.3-billion-parameter language model on 256 A100 GPUs and shipped "
            "a distilled 350-million-parameter version to production.",
            "exp0.hl1",
        ),
    ),
)
H.ok(
    "letter",
    "merge",
    "papers and patents in one sentence, first person",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "At Preferred Networks alone I have published four papers at Interspeech and ICASSP "
            "and filed two patents on streaming speech recognition.",
            "exp0.hl2",
            "exp0.hl3",
        ),
    ),
)

# -- Sébastien: engineering manager at Zalando, applying to Personio --------------------------
S = sebastien.SPEC.table
S.ok(
    "resume",
    "at_least",
    "2 million requests per second as 2M RPS",
    Put(
        "experience[2].bullets[0]",
        cite("Built Java bidding services that handled 2M RPS at peak.", "exp2.hl0"),
    ),
)
S.ok(
    "resume",
    "range",
    "p99 as the 99th percentile, 1.2 s to 250 ms in words",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Led the seven-person search team and rebuilt trip search in Go, taking "
            "99th-percentile latency from 1.2 seconds to 250 milliseconds.",
            "exp1.hl0",
        ),
    ),
)
S.ok(
    "resume",
    "counted_verb",
    "quarterly OKRs that four teams use",
    Put(
        "experience[1].bullets[2]",
        cite("Introduced quarterly OKRs that four teams use.", "exp1.hl2"),
    ),
)
S.ok(
    "resume",
    "alias",
    "gross merchandise value as GMV, the clauses reordered",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Manage 22 engineers in three teams that own checkout payments, processing €1.8B "
            "of GMV a year.",
            "exp0.hl0",
        ),
    ),
)
S.ok(
    "resume",
    "claim_synonym",
    "cut as reduced, introducing as rolling out",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Reduced payment-service incidents 45% year over year by rolling out SLOs, on-call "
            "reviews and error budgets.",
            "exp0.hl2",
        ),
    ),
)
S.ok(
    "resume",
    "quantity_form",
    "hires and promotions in words",
    Put(
        "experience[0].bullets[1]",
        cite(
            "Hired fourteen engineers in 2022; promoted four engineers to senior and two to "
            "team lead.",
            "exp0.hl1",
        ),
    ),
)
S.ok(
    "letter",
    "at_least",
    "2 million requests per second as two million requests a second",
    Put(
        "paragraphs[2].sentences[1]",
        cite(
            "I started as a software engineer at Criteo, building Java bidding services that "
            "handled two million requests a second at peak.",
            "exp2.hl0",
        ),
    ),
)
S.ok(
    "letter",
    "about_job",
    "an uncited sentence on the posting, and a greeting to a named reader",
    Add(
        "paragraphs[3].sentences",
        cite("Your posting asks for Kotlin, Kafka and experience leading several teams."),
        at=0,
    ),
    Put("greeting", "Dear Ms. Schmidt and the Personio engineering team,"),
)
S.ok(
    "letter",
    "range",
    "p99 as the 99th percentile, 1.2 s as 1.2 seconds",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "Before Zalando I led the 7-person search team at BlaBlaCar, where we rebuilt trip "
            "search in Go and cut 99th-percentile latency from 1.2 seconds to 250 ms.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
S.ok(
    "letter",
    "claim_synonym",
    "the incident sentence reordered, cut as reduced",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "After I introduced SLOs, on-call reviews and error budgets, we reduced "
            "payment-service incidents by 45% year over year.",
            "exp0.hl2",
        ),
    ),
)

# -- Şebnem: site reliability engineer at Adyen, applying to Mollie ---------------------------
B = sebnem.SPEC.table
B.ok(
    "resume",
    "at_least",
    "100k payment requests per second as 100K RPS, 45 clusters as a 45-cluster platform",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Run a 45-cluster Kubernetes platform serving 100K RPS of payments at peak with "
            "99.99% availability.",
            "exp0.hl0",
        ),
    ),
)
B.ok(
    "resume",
    "counted_verb",
    "an incident-review process that 60 teams follow, mean time to recovery as MTTR",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Wrote an incident-review process that 60 teams follow; MTTR fell from 47 to 18 "
            "minutes.",
            "exp0.hl2",
        ),
    ),
)
B.ok(
    "resume",
    "degree_generic",
    "BSc as Bachelor of Science",
    Put("education[0].degree", "Bachelor of Science"),
)
B.ok(
    "resume",
    "claim_synonym",
    "earned the CKA certification as became a Certified Kubernetes Administrator",
    Put(
        "experience[0].bullets[3]",
        cite("Became a Certified Kubernetes Administrator (CKA) in 2022.", "exp0.hl3"),
    ),
)
B.ok(
    "resume",
    "range",
    "from two days to forty minutes, 'down to'",
    Put(
        "experience[2].bullets[0]",
        cite(
            "Automated provisioning of 800 Linux servers with Ansible, taking setup time from "
            "two days down to forty minutes.",
            "exp2.hl0",
        ),
    ),
)
B.ok(
    "resume",
    "alias",
    "Kubernetes as K8s, VMs as virtual machines, moved as migrated",
    Put(
        "experience[1].bullets[0]",
        cite(
            "Migrated 300 services off Puppet-managed virtual machines onto K8s using Helm and "
            "Argo CD.",
            "exp1.hl0",
        ),
    ),
)
B.ok(
    "resume",
    "at_least",
    "100k requests per second as 100,000 requests a second",
    Put(
        "summary[2]",
        cite("I have been on call for systems handling 100,000 requests a second.", "sum2"),
    ),
)
B.ok(
    "letter",
    "at_least",
    "100k as 100K, clusters as a 45-cluster platform",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Adyen I run a 45-cluster Kubernetes platform that serves 100K payment requests "
            "per second at peak with 99.99% availability.",
            "exp0.hl0",
        ),
    ),
)
B.ok(
    "letter",
    "about_job",
    "an uncited sentence on the posting",
    Add(
        "paragraphs[2].sentences",
        cite(
            "Your posting asks for Terraform, Kubernetes and a culture of blameless incident "
            "reviews."
        ),
        at=0,
    ),
)
B.ok(
    "letter",
    "degree_generic",
    "a sentence on the bachelor's, spelled out",
    Add(
        "paragraphs[2].sentences",
        cite(
            "I hold a Bachelor of Science in Computer Engineering from Istanbul Technical "
            "University.",
            "edu0",
        ),
        at=1,
    ),
)
B.ok(
    "letter",
    "counted_verb",
    "the incident-review process that 60 teams follow, in the first person",
    Add(
        "paragraphs[1].sentences",
        cite(
            "I also wrote the incident-review process that 60 teams follow, and mean time to "
            "recovery fell from 47 to 18 minutes.",
            "exp0.hl2",
        ),
    ),
)
B.ok(
    "letter",
    "claim_synonym",
    "cut as reduced, moving as shifting",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I reduced cloud spend by $2.1M a year through rightsizing node pools and shifting "
            "batch workloads onto spot instances.",
            "exp0.hl1",
        ),
    ),
)
