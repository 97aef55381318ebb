"""Thomas Davis, a web developer in Melbourne (his public JSON Resume), applying to Canva.

The held-out profile of issue 27's second round: its truthful paraphrases and its lies were
written before the check was ever run on it, as a careful model and a lying model write,
and what the check then got wrong was fixed in the check, not here.
"""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("thomas")
SPEC = Spec(
    profile="thomas",
    company="Canva",
    role="Senior Frontend Engineer",
    headline=cite("Full Stack Web Developer", "sum0"),
    extras=(
        cite(
            "Founder of JSON Resume, an open-source standard for resumes with over 3000 GitHub "
            "stars",
            "exp6",
            "exp6.hl0",
            "exp6.hl1",
        ),
    ),
    greeting="Dear Canva hiring team,",
    letter=(
        (
            cite("I'm applying for the Senior Frontend Engineer role at Canva."),
            cite(
                "I am a full stack web developer who has spent most of my career at startups, "
                "most recently as a Senior JavaScript Developer at Tokenized.",
                "sum0",
                "sum1",
                "exp0",
            ),
        ),
        (
            cite(
                "At Tokenized I built the front end of a Bitcoin wallet, packaged as an "
                "Electron app, that signs transactions with keys stored locally.",
                "exp0.hl0",
                "exp0.hl1",
            ),
            cite(
                "At Blockbid I started on the frontend of a cryptocurrency exchange and became "
                "its lead engineer.",
                "exp1.hl0",
            ),
            cite(
                "I also co-founded cdnjs, an open-source CDN that serves hundreds of billions "
                "of requests a month from over 3000 libraries.",
                "exp7.hl0",
                "exp7.hl1",
            ),
        ),
        (cite("Thank you for considering my application."),),
    ),
    table=T,
)

# -- truthful: heavy paraphrase, as a careful model writes ---------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "quantity_form",
    "37,000,000 as 37 million, 100,000 as a hundred thousand, 500,000 as half a million",
    Put(
        "experience[4].bullets[1]",
        cite(
            "Drove 37 million banner views, a hundred thousand phone calls to Congress, half "
            "a million emails and 250k signatures.",
            "exp4.hl1",
        ),
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "began as a front-end developer, CTO from early 2013, in other words",
    Put(
        "experience[5].bullets[0]",
        cite("Joined as a front-end developer and stepped up to CTO in early 2013.", "exp5.hl0"),
    ),
)
T.ok(
    "resume",
    "merge",
    "managed the team and moved the infrastructure, one bullet, 'led' for 'managed'",
    Put(
        "experience[5].bullets[1]",
        cite(
            "Led a small team of developers and designers and moved all infrastructure from "
            "Heroku to AWS.",
            "exp5.hl1",
            "exp5.hl3",
        ),
    ),
)
T.ok(
    "resume",
    "counted_verb",
    "hundreds of billions of requests each month, 3,000 libraries, sites for websites",
    Put(
        "experience[7].bullets[1]",
        cite(
            "Serves hundreds of billions of requests each month to millions of websites from "
            "more than 3,000 libraries.",
            "exp7.hl1",
        ),
    ),
)
T.ok(
    "resume",
    "at_least",
    "over 3000 stars as 'more than three thousand', users who use it",
    Put(
        "experience[6].bullets[1]",
        cite(
            "The project has passed three thousand stars on GitHub and is used by tens of "
            "thousands of people.",
            "exp6.hl1",
        ),
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "SQL first, markets holding tens of millions of rows",
    Put(
        "experience[1].bullets[2]",
        cite("Used SQL to optimise markets holding tens of millions of rows.", "exp1.hl2"),
    ),
)
T.ok(
    "resume",
    "alias",
    "styled-components, Node, Ruby on Rails, Google Cloud Platform for GCP",
    Put(
        "experience[1].bullets[3]",
        cite(
            "Built with React, Apollo and styled-components on Node and Ruby on Rails, shipped "
            "in Docker containers to Heroku and Google Cloud Platform.",
            "exp1.hl3",
        ),
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "the Listium app in other words: cross-platform, a React Native wrapper",
    Put(
        "experience[2].bullets[0]",
        cite(
            "Developed a large cross-platform React/Redux app whose PWA shipped to iOS and "
            "Android inside a React Native wrapper.",
            "exp2.hl0",
        ),
    ),
)
T.ok(
    "resume",
    "dates",
    "dates as 'May 2020 – Present', 'Mar 2018 – Jan 2020'",
    Put("experience[0].start", "May 2020"),
    Put("experience[0].end", "Present"),
    Put("experience[1].start", "Mar 2018"),
    Put("experience[1].end", "Jan 2020"),
)
T.ok(
    "resume",
    "years",
    "over a decade of experience, from Ephox and cdnjs (2011) to now",
    Put(
        "summary[0]",
        cite(
            "Full stack web developer with over a decade of experience building apps from "
            "the ground up.",
            "sum0",
            "exp8",
            "exp7",
        ),
    ),
)
T.ok(
    "resume",
    "claim_synonym",
    "co-created for co-founded, Cloudflare's support reordered",
    Put(
        "experience[7].bullets[0]",
        cite(
            "Co-created cdnjs, a community-moderated open-source CDN for JavaScript "
            "libraries that Cloudflare now supports.",
            "exp7.hl0",
        ),
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "brainstormed campaign ideas to raise as much awareness as possible",
    Put(
        "experience[3].bullets[2]",
        cite(
            "Brainstormed campaign ideas to raise as much awareness of the issues as possible.",
            "exp3.hl2",
        ),
    ),
)
T.ok(
    "resume",
    "subset",
    "six roles, reordered bullets",
    Keep("experience", (0, 1, 2, 5, 6, 7)),
    Keep("experience[1].bullets", (2, 0, 1)),
)
T.ok(
    "resume",
    "skill_from_text",
    "Electron, Backbone.js, Docker and MongoDB listed: highlights name them",
    Add("skills", "Electron"),
    Add("skills", "Backbone.js"),
    Add("skills", "Docker"),
    Add("skills", "MongoDB"),
)
T.ok(
    "letter",
    "paraphrase",
    "the Tokenized wallet in the first person, its purpose restated",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "Most recently, at Tokenized, I have been building the front end of an "
            "Electron-packaged Bitcoin wallet used to issue, manage and trade digital tokens.",
            "exp0",
            "exp0.hl0",
        ),
    ),
)
T.ok(
    "letter",
    "about_job",
    "an uncited sentence about Canva and the posting",
    Put(
        "paragraphs[0].sentences[0]",
        cite(
            "Your posting asks for someone who has shipped large React applications, and "
            "Canva's editor is exactly the kind of product I want to work on."
        ),
    ),
)
T.ok(
    "letter",
    "merge",
    "Earbits: began front-end, became CTO, moved the infrastructure",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "At Earbits I began as a front-end developer, became CTO in early 2013, and moved "
            "all of our infrastructure from Heroku to AWS.",
            "exp5.hl0",
            "exp5.hl3",
        ),
    ),
)
T.ok(
    "letter",
    "counted_verb",
    "millions of sites rely on the CDN he co-founded",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "The cdnjs CDN I co-founded serves hundreds of billions of requests a month, and "
            "millions of sites rely on it.",
            "exp7.hl0",
            "exp7.hl1",
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the EFF action centre in the first person",
    Add(
        "paragraphs[1].sentences",
        cite(
            "At the Electronic Frontier Foundation I built an action centre in Ruby on Rails "
            "that makes it easier for people to contact Congress.",
            "exp3.hl0",
        ),
    ),
)
T.ok(
    "letter",
    "counted_verb",
    "JSON Resume, a standard that tens of thousands of people use",
    Add(
        "paragraphs[1].sentences",
        cite(
            "I also founded JSON Resume, a community-driven open-source standard for resumes "
            "that tens of thousands of people use.",
            "exp6.hl0",
            "exp6.hl1",
        ),
    ),
)
T.ok(
    "letter",
    "years",
    "building for the web since 2011",
    Add(
        "paragraphs[0].sentences",
        cite("I have been building for the web since 2011.", "exp8", "exp0"),
    ),
)
T.ok(
    "letter",
    "about_job",
    "a greeting to a named reader and a closing wish",
    Put("greeting", "Dear Ms. Perkins,"),
    Put(
        "paragraphs[2].sentences[0]",
        cite("I would be glad to talk about how I could help Canva's frontend team."),
    ),
)

# -- lies, citing the real facts they bend -------------------------------------------------
T.lie(
    "resume",
    "invented",
    "experience[5].bullets[4]",
    "music licensing and investor relations invented under the CTO role",
    Add(
        "experience[5].bullets",
        cite(
            "Negotiated music licensing deals with record labels and ran investor relations.",
            "exp5",
        ),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[1].sentences[1]",
    "regulatory compliance and AML reporting added to the Blockbid sentence",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "At Blockbid I became the exchange's lead engineer and oversaw its regulatory "
            "compliance and anti-money-laundering reporting.",
            "exp1.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[3].bullets[1]",
    "EFF's new tools given Taskforce's 100,000 phone calls",
    Put(
        "experience[3].bullets[1]",
        cite(
            "Developed new tools for contacting Congress that generated 100,000 phone calls.",
            "exp3.hl1",
            "exp4.hl1",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[2]",
    "cdnjs given JSON Resume's tens of thousands of users",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "I also co-founded cdnjs, an open-source CDN with over 3000 libraries and tens of "
            "thousands of users.",
            "exp7.hl1",
            "exp6.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[3].bullets[1]",
    "the EFF tools he developed become a development he led",
    Sub("experience[3].bullets[1]", "Developed new tools", "Led the development of new tools"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[0]",
    "the Tokenized front end he built becomes one he led",
    Sub("paragraphs[1].sentences[0]", "I built the front end", "I led the front end"),
)
T.lie(
    "resume",
    "about",
    "experience[4].bullets[1]",
    "37,000,000 banner views become about 40 million",
    Sub(
        "experience[4].bullets[1]",
        "Generated 37,000,000 banner views",
        "Generated about 40 million banner views",
    ),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[2]",
    "over 3000 libraries become about 5,000",
    Sub("paragraphs[1].sentences[2]", "from over 3000 libraries", "from about 5,000 libraries"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[1].sentences[1]",
    "five years at Blockbid (2018-03 to 2020-01), citing Tokenized's entry too",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "During five years at Blockbid I started on the frontend of a cryptocurrency "
            "exchange and became its lead engineer.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[3]",
    "four years at Earbits (2013-03 to 2015-01), citing Taskforce's entry too",
    Add(
        "summary",
        cite(
            "Spent four years at Earbits building its single-page frontend with Backbone.js.",
            "exp5.hl2",
            "exp4",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[1].sentences[1]",
    "Earbits' move from Heroku to AWS placed at Blockbid",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "At Blockbid I moved all of the infrastructure from Heroku to AWS.",
            "exp1.hl0",
            "exp5.hl3",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "the CTO title of Earbits given to the Blockbid work",
    Add(
        "summary",
        cite(
            "As CTO of Blockbid, connected the platforms of liquidity providers to the exchange.",
            "exp1.hl1",
            "exp5",
        ),
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[2]",
    "Vue.js appended to the Tokenized stack",
    Sub("experience[0].bullets[2]", "React, Redux and SCSS.", "React, Redux, SCSS and Vue.js."),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[1].sentences[0]",
    "the wallet's front end written in Angular",
    Sub("paragraphs[1].sentences[0]", "a Bitcoin wallet,", "a Bitcoin wallet in Angular,"),
)
T.lie(
    "resume",
    "quantity",
    "experience[6].bullets[1]",
    "over 3000 stars become over 30,000",
    Sub("experience[6].bullets[1]", "over 3000 stars", "over 30,000 stars"),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[2]",
    "over 3000 libraries become over 30,000",
    Sub("paragraphs[1].sentences[2]", "over 3000 libraries", "over 30,000 libraries"),
)
T.lie(
    "resume",
    "employer",
    "experience[8].company",
    "Ephox becomes Atlassian",
    Put("experience[8].company", "Atlassian"),
)
T.lie(
    "letter",
    "employer",
    "paragraphs[0].sentences[1]",
    "a former Atlassian engineer, citing his Tokenized role",
    Sub(
        "paragraphs[0].sentences[1]",
        "I am a full stack web developer",
        "I am a former Atlassian engineer and full stack web developer",
    ),
)
T.lie(
    "letter",
    "employer",
    "greeting",
    "a Google veteran, in the greeting",
    Put("greeting", "Dear Canva hiring team, as a Google veteran,"),
)
T.lie(
    "resume",
    "degree",
    "education[0]",
    "the unfinished bachelor's written as completed",
    Put("education[0].field", "Software Engineering"),
)
T.lie(
    "resume",
    "invented",
    "experience[2].bullets[3]",
    "an invented app-store duty under Listium",
    Add(
        "experience[2].bullets",
        cite("Owned App Store and Google Play release management and pricing.", "exp2.hl0"),
    ),
)
