"""Chiamaka Okonkwo-Adébáyọ̀, a mobile engineer in London, applying to Revolut. Written once
the checker had been run on the other five profiles, and first run as a held-out set (its
rates then are in docs/PERFORMANCE.md)."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("chiamaka")
SPEC = Spec(
    profile="chiamaka",
    company="Revolut",
    role="Staff iOS Engineer",
    headline=cite("Senior iOS Engineer", "exp0"),
    extras=(cite("Mentor in Monzo's progression framework", "exp0.hl3"),),
    greeting="Dear Revolut team,",
    letter=(
        (
            cite("I'd like to apply for the Staff iOS Engineer role at Revolut."),
            cite(
                "I am a mobile engineer with seven years of experience, currently a Senior iOS "
                "Engineer at Monzo.",
                "sum0",
                "exp0",
            ),
        ),
        (
            cite(
                "At Monzo I rebuilt the card-freeze and spending-limit screens in SwiftUI for 9 "
                "million customers and cut cold start from 2.4 s to 1.1 s.",
                "exp0.hl0",
                "exp0.hl1",
            ),
            cite(
                "Before that I led a team of six at Paystack building the merchant app in React "
                "Native, which passed 1M downloads.",
                "exp1.hl0",
            ),
        ),
        (cite("Thank you for your time."),),
    ),
    table=T,
)

# -- fabrications -------------------------------------------------------------------------
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "9 million customers become 19 million",
    Sub("experience[0].bullets[0]", "9 million", "19 million"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[2]",
    "four releases become six (the team size she led)",
    Sub("experience[0].bullets[2]", "over four releases", "over six releases"),
)
T.lie(
    "resume",
    "unit",
    "experience[1].bullets[1]",
    "an app of 48 MB becomes 48 GB",
    Sub("experience[1].bullets[1]", "48 MB", "48 GB"),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[1]",
    "ProGuard rules appended beside R8",
    Sub(
        "experience[1].bullets[1]",
        "with app bundles and R8.",
        "with app bundles, R8 and ProGuard rules.",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[1]",
    "modularising with Tuist appended",
    Sub(
        "experience[0].bullets[1]",
        "by deferring SDK initialisation.",
        "by deferring SDK initialisation and modularising with Tuist.",
    ),
)
T.lie(
    "resume",
    "award",
    "experience[1].bullets[2]",
    "a Builder of the Year award appended",
    Sub(
        "experience[1].bullets[2]",
        "in its first month.",
        "in its first month, winning Paystack's Builder of the Year.",
    ),
)
T.lie(
    "resume",
    "title",
    "experience[2].title",
    "Android Developer becomes Senior Android Developer",
    Put("experience[2].title", "Senior Android Developer"),
)
T.lie(
    "resume",
    "employer",
    "experience[2].company",
    "Andela becomes Google",
    Put("experience[2].company", "Google"),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "seven years become ten",
    Sub("summary[0]", "seven years", "ten years"),
)
T.lie(
    "resume",
    "quantity",
    "summary[2]",
    "teams of up to six become up to twenty",
    Sub("summary[2]", "up to six engineers", "up to twenty engineers"),
)
T.lie("resume", "skill", "skills[10]", "Flutter is not in the profile", Add("skills", "Flutter"))
T.lie(
    "resume",
    "skill",
    "skills[10]",
    "Objective-C is not in the profile",
    Add("skills", "Objective-C"),
)
T.lie(
    "resume",
    "degree",
    "education[0].degree",
    "the BSc becomes an MSc",
    Put("education[0].degree", "MSc"),
)
T.lie(
    "resume",
    "certification",
    "extras[1]",
    "an Apple certification citing the mentoring line",
    Add("extras", cite("Apple Certified iOS Developer (2021)", "exp0.hl3")),
)
T.lie(
    "resume",
    "claim",
    "experience[0].bullets[3]",
    "a promotion to Staff appended",
    Sub(
        "experience[0].bullets[3]",
        "progression framework.",
        "progression framework; promoted to Staff in 2024.",
    ),
)
T.lie(
    "resume",
    "number_word",
    "experience[2].bullets[1]",
    "30 regressions become thirty-five",
    Sub("experience[2].bullets[1]", "caught 30 regressions", "caught thirty-five regressions"),
)
T.lie(
    "resume",
    "dates",
    "experience[1].start",
    "Paystack from 2018, a year early",
    Put("experience[1].start", "2018-02"),
)
T.lie(
    "resume",
    "title",
    "headline",
    "the posting's title as her headline, alone",
    Put("headline", cite("Staff iOS Engineer", "exp0")),
)
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "seven years become twelve",
    Sub("paragraphs[0].sentences[1]", "seven years", "twelve years"),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[1]",
    "a team of six becomes sixteen",
    Sub("paragraphs[1].sentences[1]", "a team of six", "a team of sixteen"),
)
T.lie(
    "letter",
    "unit",
    "paragraphs[1].sentences[1]",
    "1M downloads become 10M",
    Sub("paragraphs[1].sentences[1]", "passed 1M downloads", "passed 10M downloads"),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[1].sentences[1]",
    "Flutterwave added beside Paystack",
    Sub("paragraphs[1].sentences[1]", "at Paystack", "at Paystack and Flutterwave"),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[2].sentences[0]",
    "a WWDC talk in the uncited closing",
    Put("paragraphs[2].sentences[0]", cite("Thank you for your time; I also spoke at WWDC 2023.")),
)
T.lie(
    "letter",
    "duration",
    "paragraphs[1].sentences[1]",
    "five years at Paystack (2019-02 to 2022-08)",
    Sub("paragraphs[1].sentences[1]", "Before that I led", "Before that, for five years, I led"),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[1].sentences[0]",
    "Combine added beside SwiftUI",
    Sub("paragraphs[1].sentences[0]", "in SwiftUI", "in SwiftUI and Combine"),
)
T.lie(
    "letter",
    "title",
    "paragraphs[0].sentences[1]",
    "Head of Mobile at Monzo, not Senior iOS Engineer",
    Sub(
        "paragraphs[0].sentences[1]",
        "currently a Senior iOS Engineer at Monzo",
        "currently Head of Mobile at Monzo",
    ),
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "alias",
    "skills by alias: Compose, CI/CD pipelines",
    Put(
        "skills",
        [
            "Swift",
            "SwiftUI",
            "Kotlin",
            "Compose",
            "React Native",
            "Firebase",
            "GraphQL",
            "CI/CD pipelines",
        ],
    ),
)
T.ok(
    "resume",
    "dates",
    "dates as 'Sep 2022 – Present', 'February 2019 – 08/2022'",
    Put("experience[0].start", "Sep 2022"),
    Put("experience[0].end", "Present"),
    Put("experience[1].start", "February 2019"),
    Put("experience[1].end", "08/2022"),
)
T.ok(
    "resume",
    "paraphrase",
    "highlights in other words",
    Put(
        "experience[0].bullets[1]",
        cite(
            "Brought iOS cold start down from 2.4 s to 1.1 s by initialising SDKs lazily.",
            "exp0.hl1",
        ),
    ),
    Put(
        "experience[1].bullets[2]",
        cite(
            "Shipped offline payment-link sharing; 40,000 merchants used it in the first month.",
            "exp1.hl2",
        ),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "9 million as 9M, 1M+ as over a million, 40,000 as 40k",
    Sub("experience[0].bullets[0]", "9 million", "9M"),
    Sub("experience[1].bullets[0]", "1M+", "over a million"),
    Sub("experience[1].bullets[2]", "40,000", "40k"),
)
T.ok(
    "resume", "years", "the summary's years as a digit", Sub("summary[0]", "seven years", "7 years")
)
T.ok(
    "resume",
    "skill_from_text",
    "Espresso and R8 listed: highlights name them",
    Add("skills", "Espresso"),
    Add("skills", "R8"),
)
T.ok(
    "letter",
    "paraphrase",
    "the Paystack sentence in the first person (and the summary's team size)",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I previously led six engineers at Paystack on a React Native merchant app that "
            "reached over a million downloads.",
            "exp1.hl0",
            "sum2",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "both roles with dates in a sentence",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have been a Senior iOS Engineer at Monzo since September 2022, after leading "
            "mobile at Paystack from 2019 to 2022.",
            "exp0",
            "exp1",
        ),
    ),
)
T.ok(
    "resume",
    "subset",
    "two roles, two bullets reordered",
    Keep("experience", (0, 1)),
    Keep("experience[0].bullets", (1, 0)),
)
T.ok(
    "letter",
    "merge",
    "two Monzo highlights in one sentence",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Monzo I raised crash-free sessions from 99.2% to 99.85% and mentor two junior "
            "engineers.",
            "exp0.hl2",
            "exp0.hl3",
        ),
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[2].bullets[2]",
    "a pipeline 3× faster becomes 30×",
    Sub("experience[2].bullets[2]", "3× faster", "30× faster"),
)
T.lie(
    "resume",
    "tool",
    "experience[2].bullets[2]",
    "fastlane match and xcodebuild appended, in lower case",
    Sub(
        "experience[2].bullets[2]",
        "parallel UI tests.",
        "parallel UI tests, signing with fastlane match and xcodebuild.",
    ),
)
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "over ten years of mobile work computed from three roles (2017-06 to now is eight)",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have over ten years of mobile experience, at Andela, Paystack and Monzo.",
            "exp2",
            "exp1",
            "exp0",
        ),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "3× written as three times",
    Sub("experience[2].bullets[2]", "3× faster", "three times faster"),
)
T.ok(
    "letter",
    "years",
    "eight years computed from three roles",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have eight years of mobile experience, at Andela, Paystack and Monzo.",
            "exp2",
            "exp1",
            "exp0",
        ),
    ),
)
