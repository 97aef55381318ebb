"""Luísa Gonçalves Araújo, a designer turned frontend engineer in Lisbon, applying to
Typeform."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("luisa")

SPEC = Spec(
    profile="luisa",
    company="Typeform",
    role="Senior Frontend Engineer, Design Systems",
    headline=cite("Senior Frontend Engineer · design systems and accessibility", "exp0", "sum1"),
    extras=(
        cite("Winner, Resultados Digitais hackathon 2018", "exp2.hl2"),
        cite("Full-Stack Web Development certificate, Le Wagon São Paulo (2019)", "edu1"),
    ),
    greeting="Dear Typeform team,",
    letter=(
        (
            cite(
                "I would love to join Typeform as a Senior Frontend Engineer on the design "
                "systems team."
            ),
            cite(
                "I started my career as a product designer at Resultados Digitais and have "
                "been building frontends since 2020, first at Nubank and now at Farfetch.",
                "exp2",
                "exp1",
                "exp0",
            ),
        ),
        (
            cite(
                "At Farfetch I lead the design-system team of four engineers and two "
                "designers, and our component library now serves 35 product teams.",
                "exp0.hl1",
            ),
            cite(
                "I rebuilt the checkout in React and TypeScript, which lifted mobile "
                "conversion by 4.2% across 190 countries.",
                "exp0.hl0",
            ),
            cite(
                "I also brought the storefront to WCAG 2.1 AA and ran accessibility training "
                "for 120 engineers.",
                "exp0.hl4",
            ),
        ),
        (
            cite(
                "Before Farfetch, at Nubank, I built the React Native screens for the "
                "credit-card limit flow used by 12 million customers.",
                "exp1.hl0",
                "exp0",
            ),
            cite(
                "Having designed before I coded, I know what a component library has to give "
                "both designers and engineers.",
                "exp2",
                "exp2.hl1",
                "sum1",
            ),
        ),
        (cite("Thank you for reading, and I hope we can talk soon."),),
    ),
    table=T,
)

# -- fabrications: the resume ----------------------------------------------------------------
T.lie(
    "resume",
    "title",
    "headline",
    "Staff Frontend Engineer was never her title",
    Put("headline", cite("Staff Frontend Engineer · design systems", "exp0")),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "eight years become eleven",
    Sub("summary[0]", "eight years", "eleven years"),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "three years as a designer become five",
    Sub("summary[0]", "the first three", "the first five"),
)
T.lie(
    "resume",
    "employer",
    "summary[2]",
    "the move to Lisbon was 'to join Google'",
    Sub("summary[2]", "to Lisbon in 2022.", "to Lisbon in 2022 to join Google."),
)
T.lie(
    "resume",
    "dates",
    "summary[2]",
    "the move to Lisbon a year earlier",
    Sub("summary[2]", "in 2022", "in 2021"),
)
T.lie(
    "resume",
    "skill",
    "skills[15]",
    "Vue is not in the profile",
    Add("skills", "Vue.js"),
)
T.lie(
    "resume",
    "skill",
    "skills[0]",
    "Svelte is not in the profile (a tool outside any vocabulary)",
    Add("skills", "Svelte", at=0),
)
T.lie(
    "resume",
    "title",
    "experience[1].title",
    "Frontend Engineer at Nubank becomes Senior Frontend Engineer",
    Put("experience[1].title", "Senior Frontend Engineer"),
)
T.lie(
    "resume",
    "employer",
    "experience[2].company",
    "Resultados Digitais becomes Nubank's design agency 'IDEO'",
    Put("experience[2].company", "IDEO"),
)
T.lie(
    "resume",
    "dates",
    "experience[2].end",
    "the designer role ends 2020-06, overlapping Nubank",
    Put("experience[2].end", "2020-06"),
)
T.lie(
    "resume",
    "dates",
    "experience[0].start",
    "Farfetch starts in 2021",
    Put("experience[0].start", "2021-05"),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[0]",
    "Svelte added to the checkout rebuild",
    Sub("experience[0].bullets[0]", "in React and TypeScript", "in React, Svelte and TypeScript"),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[1]",
    "Relay appended to the GraphQL highlight",
    Sub(
        "experience[1].bullets[1]",
        "for the rewards app.",
        "for the rewards app, later migrated to Relay.",
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "4.2% conversion lift becomes 14.2%",
    Sub("experience[0].bullets[0]", "by 4.2%", "by 14.2%"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[1]",
    "35 product teams become 120 (the training's engineers)",
    Sub("experience[0].bullets[1]", "serves 35 product teams", "serves 120 product teams"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[3]",
    "€400k a year becomes €400M",
    Sub("experience[0].bullets[3]", "€400k", "€400M"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[2]",
    "1.9 s becomes 1.9 ms",
    Sub("experience[0].bullets[2]", "to 1.9 s", "to 1.9 ms"),
)
T.lie(
    "resume",
    "number_word",
    "experience[1].bullets[0]",
    "12 million customers become forty million",
    Sub("experience[1].bullets[0]", "12 million", "forty million"),
)
T.lie(
    "resume",
    "quantity",
    "experience[1].bullets[2]",
    "test coverage raised to 94%, not 80%",
    Sub("experience[1].bullets[2]", "to 80%", "to 94%"),
)
T.lie(
    "resume",
    "award",
    "experience[0].bullets[4]",
    "an accessibility award appended",
    Sub(
        "experience[0].bullets[4]",
        "for 120 engineers.",
        "for 120 engineers, earning the Farfetch Inclusion Award.",
    ),
)
T.lie(
    "resume",
    "claim",
    "experience[2].bullets[1]",
    "the library 'patented'",
    Sub(
        "experience[2].bullets[1]",
        "shared by 6 squads.",
        "shared by 6 squads, and co-authored a patent on its token system.",
    ),
)
T.lie(
    "resume",
    "degree",
    "education[0].degree",
    "the Bachelor becomes a Master",
    Put("education[0].degree", "Master"),
)
T.lie(
    "resume",
    "dates",
    "education[1].end",
    "the bootcamp runs into 2020",
    Put("education[1].end", "2020"),
)
T.lie(
    "resume",
    "certification",
    "extras[2]",
    "a Google UX certificate citing the real bootcamp certificate",
    Add("extras", cite("Google UX Design Professional Certificate (2021)", "edu1")),
)
T.lie(
    "resume",
    "award",
    "extras[0]",
    "the hackathon win becomes 'Grand prize, RD Summit 2019'",
    Put("extras[0]", cite("Grand prize, RD Summit hackathon 2019", "exp2.hl2")),
)
T.lie(
    "resume",
    "unknown_fact",
    "experience[0].bullets[5]",
    "a bullet citing an id the profile does not have",
    Add(
        "experience[0].bullets",
        cite("Ran the frontend guild for 80 engineers.", "id:hl-0000000000"),
    ),
)
T.lie(
    "resume",
    "name",
    "name",
    "the name anglicised and changed",
    Put("name", "Louise Gonzalez"),
)

# -- fabrications: the letter ----------------------------------------------------------------
T.lie(
    "letter",
    "employer",
    "paragraphs[0].sentences[1]",
    "a stint at Spotify added to the career line",
    Sub(
        "paragraphs[0].sentences[1]",
        "first at Nubank and now at Farfetch.",
        "first at Nubank, then at Spotify, and now at Farfetch.",
    ),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[0]",
    "a team of four engineers becomes fourteen",
    Sub("paragraphs[1].sentences[0]", "team of four engineers", "team of fourteen engineers"),
)
T.lie(
    "letter",
    "quantity_swap",
    "paragraphs[1].sentences[1]",
    "190 countries become 240 (the Figma library's components)",
    Sub("paragraphs[1].sentences[1]", "across 190 countries", "across 240 countries"),
)
T.lie(
    "letter",
    "title",
    "paragraphs[1].sentences[0]",
    "she 'heads' design systems as Head of Frontend",
    Sub(
        "paragraphs[1].sentences[0]",
        "At Farfetch I lead",
        "As Head of Frontend at Farfetch I lead",
    ),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[2].sentences[0]",
    "Flutter slipped in beside React Native",
    Sub(
        "paragraphs[2].sentences[0]",
        "the React Native screens",
        "the React Native and Flutter screens",
    ),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[3].sentences[0]",
    "the closing claims a Figma community award",
    Put(
        "paragraphs[3].sentences[0]",
        cite("As a Figma Community Award winner, I hope we can talk soon."),
    ),
)
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "frontend since 2018 (Nubank began in 2020)",
    Sub("paragraphs[0].sentences[1]", "since 2020", "since 2018"),
)
T.lie(
    "letter",
    "degree",
    "paragraphs[2].sentences[1]",
    "a master's in HCI claimed in a real sentence",
    Sub(
        "paragraphs[2].sentences[1]",
        "Having designed before I coded,",
        "Having designed before I coded, and with a master's in HCI,",
    ),
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "reorder",
    "roles and bullets reordered, extras dropped",
    Keep("experience", (1, 0, 2)),
    Keep("experience[1].bullets", (3, 2, 1, 0, 4)),
    Keep("extras", ()),
)
T.ok(
    "resume",
    "alias",
    "skills by alias: JS, TS, ReactJS, NextJS, Node",
    Put(
        "skills",
        ["TS", "JS", "ReactJS", "NextJS", "Node", "GraphQL", "HTML5", "CSS3", "Figma", "Jest"],
    ),
)
T.ok(
    "resume",
    "dates",
    "dates as 'May 2022 – Present', '01/2020 – 04/2022', 'March 2017'",
    Put("experience[0].start", "May 2022"),
    Put("experience[0].end", "Present"),
    Put("experience[1].start", "01/2020"),
    Put("experience[1].end", "04/2022"),
    Put("experience[2].start", "March 2017"),
    Put("experience[2].end", "December 2019"),
)
T.ok(
    "resume",
    "paraphrase",
    "highlights paraphrased",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Used server-side rendering in Next.js to bring the product page's LCP down from "
            "3.8 s to 1.9 s.",
            "exp0.hl2",
        ),
    ),
    Put(
        "experience[2].bullets[0]",
        cite(
            "Redesigned RD Station Marketing's onboarding; trial-to-paid conversion went from "
            "9% to 14%.",
            "exp2.hl0",
        ),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "€400k written as EUR 400,000; 12 million as 12M",
    Sub("experience[0].bullets[3]", "€400k", "EUR 400,000"),
    Sub("experience[1].bullets[0]", "12 million", "12M"),
)
T.ok(
    "resume",
    "years",
    "the summary's years as a digit",
    Put(
        "summary[0]",
        cite(
            "Frontend engineer with 8 years of experience, the first 3 in product design.", "sum0"
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the evidence paragraph in other words",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "My rebuild of the checkout in React and TypeScript raised mobile conversion 4.2% "
            "in 190 countries.",
            "exp0.hl0",
        ),
    ),
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "Accessibility matters to me: I took the storefront to WCAG 2.1 AA and trained 120 "
            "engineers.",
            "exp0.hl4",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "dates in a sentence: May 2022–present, 2020-01 to 2022-04",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have been a Senior Frontend Engineer at Farfetch from May 2022–present, and "
            "before that a Frontend Engineer at Nubank from 2020-01 to 2022-04.",
            "exp0",
            "exp1",
        ),
    ),
)
T.ok(
    "letter",
    "subset",
    "the letter without its Nubank paragraph",
    Keep("paragraphs", (0, 1, 3)),
)
T.ok(
    "letter",
    "paraphrase",
    "a greeting and a closing in Portuguese",
    Put("greeting", "Olá Typeform team,"),
    Put("paragraphs[3].sentences[0]", cite("Obrigada for reading, and I hope we can talk soon.")),
)
T.ok(
    "resume",
    "alias",
    "skills in lower case",
    Put("skills", ["typescript", "javascript", "react", "next.js", "graphql", "figma"]),
)
T.ok(
    "resume",
    "skill_from_text",
    "React Native, Apollo and Testing Library listed: each is named in a highlight",
    Add("skills", "React Native"),
    Add("skills", "Apollo"),
    Add("skills", "Testing Library"),
)
T.ok(
    "resume",
    "merge",
    "a summary sentence joined with a highlight",
    Put(
        "summary[0]",
        cite(
            "Frontend engineer with eight years of experience; at Farfetch I rebuilt the "
            "checkout in React and TypeScript.",
            "sum0",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "title",
    "experience[0].title",
    "the posting's title given to her Farfetch role",
    Put("experience[0].title", "Senior Frontend Engineer, Design Systems"),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[2]",
    "vitest added beside Jest, in lower case",
    Sub(
        "experience[1].bullets[2]",
        "with Jest and Testing Library.",
        "with Jest, vitest and Testing Library.",
    ),
)

# -- a second held-out set: new wordings, first run once against the checker --------------
T.ok(
    "resume",
    "paraphrase",
    "the LCP highlight in the passive voice",
    Put(
        "experience[0].bullets[2]",
        cite(
            "The product page's Largest Contentful Paint was cut from 3.8 s to 1.9 s through "
            "server-side rendering in Next.js.",
            "exp0.hl2",
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the design-system team with its make-up in brackets",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "My design-system team at Farfetch (four engineers, two designers) maintains a "
            "component library that 35 product teams now use.",
            "exp0.hl1",
        ),
    ),
)
T.ok(
    "resume",
    "dates",
    "dates as 'Jan 2020 – Apr 2022' and 'Mar 2017 – Dec 2019'",
    Put("experience[1].start", "Jan 2020"),
    Put("experience[1].end", "Apr 2022"),
    Put("experience[2].start", "Mar 2017"),
    Put("experience[2].end", "Dec 2019"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[2]",
    "LCP down to 0.9 s, in the passive voice",
    Put(
        "experience[0].bullets[2]",
        cite(
            "The product page's Largest Contentful Paint was cut from 3.8 s to 0.9 s through "
            "server-side rendering in Next.js.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[0]",
    "35 product teams become 53, in a reworded sentence",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "My design-system team at Farfetch (four engineers, two designers) maintains a "
            "component library that 53 product teams now use.",
            "exp0.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "dates",
    "experience[1].end",
    "Nubank until Dec 2022, overlapping Farfetch",
    Put("experience[1].end", "Dec 2022"),
)
