"""Agnieszka Wróblewska, a data engineer in Kraków, applying to Snowplow."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("agnieszka")

SPEC = Spec(
    profile="agnieszka",
    company="Snowplow",
    role="Senior Data Engineer",
    headline=cite("Senior Data Engineer", "exp0"),
    extras=(cite("Allegro Tech Hero award, 2023", "exp0.hl4"),),
    greeting="Dear Snowplow hiring team,",
    letter=(
        (
            cite("I am writing to apply for the Senior Data Engineer role at Snowplow."),
            cite(
                "I have spent the last eight years building batch and streaming pipelines on "
                "Google Cloud and AWS, most recently as a Senior Data Engineer at Allegro.",
                "sum0",
                "exp0",
            ),
        ),
        (
            cite(
                "At Allegro I built a Kafka and Spark Structured Streaming pipeline that "
                "ingests more than 50 million clickstream events a day, with end-to-end "
                "latency under two minutes.",
                "exp0.hl1",
            ),
            cite(
                "I also introduced data contracts and Great Expectations checks for 140 core "
                "tables, which cut broken-dashboard incidents from 11 to 2 per quarter.",
                "exp0.hl2",
            ),
            cite(
                "Before that, at ING Hubs Poland, I moved 25 nightly batch jobs from cron to "
                "Airflow and raised on-time delivery from 91% to 99.5%.",
                "exp1.hl1",
            ),
        ),
        (
            cite(
                "Today I lead a team of five data engineers, and I enjoy teaching SQL to analysts.",
                "exp0.hl3",
                "sum2",
            ),
            cite(
                "Snowplow's focus on behavioural data quality is exactly the problem I want to "
                "keep working on."
            ),
        ),
        (
            cite(
                "Thank you for considering my application; I would be glad to talk about how "
                "I could help Snowplow."
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
    "the headline claims a title never held",
    Put("headline", cite("Principal Data Engineer", "exp0")),
)
T.lie(
    "resume",
    "years",
    "headline",
    "the headline inflates eight years to 12",
    Put("headline", cite("Senior Data Engineer with 12 years of experience", "exp0", "sum0")),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "eight years of experience become twelve",
    Sub("summary[0]", "eight years", "twelve years"),
)
T.lie(
    "resume",
    "employer",
    "summary[2]",
    "the team she leads is placed at Google",
    Sub(
        "summary[2]", "I lead a team of five engineers", "At Google I lead a team of five engineers"
    ),
)
T.lie(
    "resume",
    "degree",
    "summary[0]",
    "a PhD the profile does not have",
    Sub("summary[0]", "Data engineer with", "Data engineer with a PhD in distributed systems and"),
)
T.lie(
    "resume",
    "uncited",
    "summary[3]",
    "an uncited summary sentence claims a certification",
    Add("summary", cite("I hold the Google Cloud Professional Data Engineer certification.")),
)
T.lie(
    "resume",
    "skill",
    "skills[16]",
    "Apache Flink is not in the profile",
    Add("skills", "Apache Flink"),
)
T.lie(
    "resume",
    "skill",
    "skills[3]",
    "Dagster is not in the profile",
    Add("skills", "Dagster", at=3),
)
T.lie(
    "resume",
    "title",
    "experience[0].title",
    "Senior Data Engineer becomes Staff",
    Put("experience[0].title", "Staff Data Engineer"),
)
T.lie(
    "resume",
    "employer",
    "experience[1].company",
    "ING Hubs Poland becomes Revolut",
    Put("experience[1].company", "Revolut"),
)
T.lie(
    "resume",
    "dates",
    "experience[1].start",
    "the ING start moves a year earlier",
    Put("experience[1].start", "2017-06"),
)
T.lie(
    "resume",
    "employer",
    "experience[3]",
    "a Google internship that never happened",
    Add(
        "experience",
        {
            "fact": "",
            "title": "Data Engineering Intern",
            "company": "Google",
            "start": "2015-06",
            "end": "2015-09",
            "location": "Warszawa, Poland",
            "bullets": [cite("Built reporting pipelines in SQL for a retail client.", "exp2.hl0")],
        },
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[1]",
    "Dagster appended to a real highlight",
    Sub(
        "experience[0].bullets[1]",
        "under 2 minutes.",
        "under 2 minutes, orchestrated with Dagster.",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[0]",
    "Apache Flink appended to a real highlight",
    Sub(
        "experience[1].bullets[0]",
        "anti-money-laundering team.",
        "anti-money-laundering team using Apache Flink.",
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "1,200 DAGs become 2,000",
    Sub("experience[0].bullets[0]", "1,200 Airflow DAGs", "2,000 Airflow DAGs"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[0]",
    "38% becomes 60% (60 is the guild's attendees)",
    Sub("experience[0].bullets[0]", "by 38%", "by 60%"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[1]",
    "50M+ events a day become 50B+",
    Sub("experience[0].bullets[1]", "50M+", "50B+"),
)
T.lie(
    "resume",
    "number_word",
    "experience[0].bullets[3]",
    "a team of five becomes sixty (60 is the same line's attendees)",
    Sub(
        "experience[0].bullets[3]",
        "a team of five data engineers",
        "a team of sixty data engineers",
    ),
)
T.lie(
    "resume",
    "award",
    "experience[1].bullets[1]",
    "an award appended to a real highlight",
    Sub(
        "experience[1].bullets[1]",
        "from 91% to 99.5%.",
        "from 91% to 99.5%, and won ING's Global Innovation Award for it.",
    ),
)
T.lie(
    "resume",
    "claim",
    "experience[0].bullets[3]",
    "a promotion appended to a real highlight",
    Sub(
        "experience[0].bullets[3]",
        "for 60 attendees.",
        "for 60 attendees; promoted to Head of Data Engineering in 2024.",
    ),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[2]",
    "incidents from 11 become from 140 (140 is the same line's tables)",
    Sub("experience[0].bullets[2]", "from 11 to 2", "from 140 to 2"),
)
T.lie(
    "resume",
    "moved",
    "experience[0].bullets[5]",
    "an ING highlight placed under Allegro",
    Add(
        "experience[0].bullets",
        cite(
            "Designed the Scala and Spark jobs that reconcile 3 million card transactions a "
            "night for the anti-money-laundering team.",
            "exp1.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "degree",
    "education[0].degree",
    "the MSc becomes a PhD",
    Put("education[0].degree", "PhD"),
)
T.lie(
    "resume",
    "school",
    "education[1]",
    "an exchange year at Stanford",
    Add(
        "education",
        {
            "fact": "edu0",
            "institution": "Stanford University",
            "degree": "Exchange year",
            "field": "Computer Science",
            "start": "2014",
            "end": "2015",
        },
    ),
)
T.lie(
    "resume",
    "award",
    "extras[1]",
    "a Google Developer Expert title citing the real award",
    Add("extras", cite("Google Developer Expert for Google Cloud (2022)", "exp0.hl4")),
)
T.lie(
    "resume",
    "dates",
    "extras[0]",
    "the award won once becomes won twice",
    Sub("extras[0]", "2023", "2021 and 2023"),
)

# -- fabrications: the letter ----------------------------------------------------------------
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "eight years become twelve",
    Sub("paragraphs[0].sentences[1]", "the last eight years", "the last twelve years"),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[0].sentences[1]",
    "Principal Data Engineer at Google, leading 40 people",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have spent the last eight years building data platforms, most recently as "
            "Principal Data Engineer at Google, where I led platform teams of 40 people.",
            "sum0",
            "exp0",
        ),
    ),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[0]",
    "50 million events become 500 million",
    Sub("paragraphs[1].sentences[0]", "more than 50 million", "more than 500 million"),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[1].sentences[2]",
    "Dagster added next to Airflow",
    Sub("paragraphs[1].sentences[2]", "from cron to Airflow", "from cron to Airflow and Dagster"),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[2].sentences[1]",
    "an uncited sentence claims Revolut",
    Add(
        "paragraphs[2].sentences",
        cite("I have also run the data platform team at Revolut."),
        at=1,
    ),
)
T.lie(
    "letter",
    "degree",
    "paragraphs[2].sentences[0]",
    "a PhD slipped into a real sentence",
    Sub(
        "paragraphs[2].sentences[0]",
        "Today I lead",
        "With a PhD in stream processing, today I lead",
    ),
)
T.lie(
    "letter",
    "quantity_swap",
    "paragraphs[1].sentences[1]",
    "140 tables become 1,200 (the DAG count of the same role)",
    Sub("paragraphs[1].sentences[1]", "for 140 core tables", "for 1,200 core tables"),
)
T.lie(
    "letter",
    "duration",
    "paragraphs[1].sentences[2]",
    "five years at ING Hubs Poland (2018-06 to 2021-02 is under three)",
    Sub(
        "paragraphs[1].sentences[2]",
        "Before that, at ING Hubs Poland,",
        "Before that, in five years at ING Hubs Poland,",
    ),
)
T.lie(
    "letter",
    "award",
    "paragraphs[1].sentences[0]",
    "the streaming pipeline 'won' the 2022 Tech Hero award (it was the 2023 award, for the "
    "migration, in a highlight not cited)",
    Sub(
        "paragraphs[1].sentences[0]",
        "under two minutes.",
        "under two minutes, which won the Allegro Tech Hero award in 2022.",
    ),
)

# -- a known gap -----------------------------------------------------------------------------
T.lie(
    "resume",
    "reversal",
    "experience[1].bullets[1]",
    "cron and Airflow swapped: the same words, the opposite meaning",
    Sub("experience[1].bullets[1]", "from cron to Airflow", "from Airflow to cron"),
    gap="a pure meaning change: no new name, number, tool, date or claim word",
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "subset",
    "the two recent roles, three bullets reordered, a skill subset",
    Keep("experience", (0, 1)),
    Keep("experience[0].bullets", (2, 1, 0)),
    Keep("skills", (3, 2, 0, 1, 6, 7, 4, 5)),
)
T.ok(
    "resume",
    "dates",
    "dates as 'Mar 2021 – Present', 'June 2018', '10/2016'",
    Put("experience[0].start", "Mar 2021"),
    Put("experience[0].end", "Present"),
    Put("experience[1].start", "June 2018"),
    Put("experience[1].end", "February 2021"),
    Put("experience[2].start", "10/2016"),
    Put("experience[2].end", "05/2018"),
)
T.ok(
    "resume",
    "alias",
    "skills by their common aliases",
    Put(
        "skills",
        [
            "Python",
            "SQL",
            "Spark",
            "Kafka",
            "Airflow",
            "dbt",
            "BigQuery",
            "GCP",
            "AWS",
            "Terraform",
            "Docker",
            "K8s",
            "Postgres",
            "Scala",
            "CI/CD pipelines",
        ],
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "bullets rephrased in the first person",
    Put(
        "experience[0].bullets[0]",
        cite(
            "I led the move of 1,200 Airflow DAGs from an on-premise Hadoop cluster to "
            "BigQuery and Cloud Composer and cut the monthly infrastructure bill by 38%.",
            "exp0.hl0",
        ),
    ),
    Put(
        "experience[1].bullets[2]",
        cite(
            "I wrote our internal PySpark style guide and onboarded 12 engineers to it.", "exp1.hl2"
        ),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "the same quantities written another way",
    Sub("experience[0].bullets[1]", "50M+", "more than 50 million"),
    Sub("experience[0].bullets[0]", "1,200", "1200"),
    Sub("experience[0].bullets[0]", "38%", "38 percent"),
    Sub("experience[2].bullets[1]", "6 hours", "six hours"),
)
T.ok(
    "resume",
    "years",
    "the summary shortened, years as a digit",
    Put(
        "summary",
        [
            cite(
                "Data engineer with 8+ years of experience in batch and streaming pipelines "
                "on Google Cloud and AWS.",
                "sum0",
            ),
            cite("I lead a team of 5 engineers and like teaching SQL to analysts.", "sum2"),
        ],
    ),
)
T.ok(
    "resume",
    "dates",
    "the headline with a '2021–present' range",
    Put("headline", cite("Senior Data Engineer at Allegro (2021–present)", "exp0")),
)
T.ok(
    "letter",
    "merge",
    "one sentence from two highlights of the same role",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Allegro I led the migration of 1,200 Airflow DAGs to BigQuery and received "
            "the Allegro Tech Hero award in 2023 for it.",
            "exp0.hl0",
            "exp0.hl4",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "both roles with their dates, written out",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "Since March 2021 I have been a Senior Data Engineer at Allegro; from June 2018 "
            "to February 2021 I was a Data Engineer at ING Hubs Poland.",
            "exp0",
            "exp1",
        ),
    ),
)
T.ok(
    "letter",
    "years",
    "years of experience computed from the three dated roles",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have worked with data for over eight years, at Comarch, ING Hubs Poland and "
            "now Allegro.",
            "exp0",
            "exp1",
            "exp2",
        ),
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "the extras rephrased",
    Put(
        "extras",
        [cite("Allegro Tech Hero award (2023) for the BigQuery migration", "exp0.hl4")],
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "the guild as an extras line",
    Add("extras", cite("Organiser of Allegro's monthly data guild (60 attendees)", "exp0.hl3")),
)
T.ok(
    "resume",
    "alias",
    "a headline naming three skills, two by their short names",
    Put(
        "headline",
        cite(
            "Senior Data Engineer · Spark, Kafka, BigQuery",
            "exp0",
            "skill:Apache Spark",
            "skill:Apache Kafka",
            "skill:BigQuery",
        ),
    ),
)
T.ok(
    "resume",
    "alias",
    "'Sr.' for Senior, Warsaw for Warszawa, M.Sc. for MSc",
    Put("experience[0].title", "Sr. Data Engineer"),
    Put("experience[0].location", "Warsaw, Poland"),
    Put("education[0].degree", "M.Sc."),
)
T.ok(
    "resume",
    "skill_from_text",
    "Cloud Composer, Hadoop and PySpark listed: each is named in a highlight",
    Add("skills", "Cloud Composer"),
    Add("skills", "Hadoop"),
    Add("skills", "PySpark"),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[1].sentences[0]",
    "the streaming pipeline placed at Snowplow, the employer applied to",
    Sub("paragraphs[1].sentences[0]", "At Allegro I built", "At Snowplow I built"),
)
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "over eleven years computed from three roles (2016-10 to now is under nine)",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have worked with data for over eleven years, at Comarch, ING Hubs Poland and "
            "now Allegro.",
            "exp0",
            "exp1",
            "exp2",
        ),
    ),
)
T.lie(
    "resume",
    "number_word",
    "experience[1].bullets[2]",
    "12 engineers onboarded become a hundred",
    Sub("experience[1].bullets[2]", "onboarded 12 engineers", "onboarded a hundred engineers"),
)

# -- a second held-out set: new wordings, first run once against the checker --------------
T.ok(
    "resume",
    "paraphrase",
    "the data-contracts highlight reworded, 'from 11 a quarter to 2'",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Rolled out data contracts plus Great Expectations checks on 140 core tables; "
            "broken-dashboard incidents dropped from 11 a quarter to 2.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "resume",
    "claim",
    "experience[0].bullets[2]",
    "she 'invented' a data-contract standard, 'now an industry reference'",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Invented Allegro's data-contract standard, now an industry reference, with Great "
            "Expectations checks on 140 core tables.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[2].sentences[0]",
    "the team of five 'across Allegro and Google'",
    Sub(
        "paragraphs[2].sentences[0]",
        "Today I lead a team of five data engineers,",
        "Today I lead a team of five data engineers across Allegro and Google,",
    ),
)
