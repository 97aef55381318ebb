"""Şebnem Yıldız, a site reliability engineer in Amsterdam, applying to Mollie."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("sebnem")

SPEC = Spec(
    profile="sebnem",
    company="Mollie",
    role="Principal Platform Engineer",
    headline=cite("Staff Site Reliability Engineer · Kubernetes platforms", "exp0", "exp0.hl0"),
    extras=(
        cite("Certified Kubernetes Administrator (CKA), 2022", "exp0.hl3"),
        cite("AWS Certified Solutions Architect – Professional, 2020", "exp1.hl2"),
    ),
    greeting="Dear Mollie team,",
    letter=(
        (
            cite("I am writing to apply for the Principal Platform Engineer position at Mollie."),
            cite(
                "I am a site reliability engineer with ten years in operations and "
                "infrastructure, and I currently work as a Staff Site Reliability Engineer at "
                "Adyen.",
                "sum0",
                "exp0",
            ),
        ),
        (
            cite(
                "At Adyen I run the Kubernetes platform of 45 clusters that serves 100k payment "
                "requests per second at peak with 99.99% availability.",
                "exp0.hl0",
            ),
            cite(
                "I cut cloud spend by $2.1M a year by rightsizing node pools and moving batch "
                "workloads to spot instances.",
                "exp0.hl1",
            ),
            cite(
                "At Booking.com I moved 300 services from Puppet-managed VMs to Kubernetes with "
                "Helm and Argo CD.",
                "exp1.hl0",
            ),
        ),
        (
            cite(
                "I hold the CKA and AWS Solutions Architect – Professional certifications.",
                "sum0",
            ),
            cite("I would be glad to bring that experience to Mollie."),
        ),
        (cite("Thank you for considering my application."),),
    ),
    table=T,
)

# -- fabrications: the resume ----------------------------------------------------------------
T.lie(
    "resume",
    "title",
    "headline",
    "the posting's title as her headline",
    Put("headline", cite("Principal Platform Engineer · Kubernetes platforms", "exp0", "exp0.hl0")),
)
T.lie(
    "resume",
    "years",
    "headline",
    "14 years in infrastructure (ten in the profile)",
    Put("headline", cite("SRE · 14 years in infrastructure", "exp0", "sum0")),
)
T.lie(
    "resume",
    "years",
    "summary[0]",
    "ten years become twelve",
    Sub("summary[0]", "ten years", "twelve years"),
)
T.lie(
    "resume",
    "certification",
    "summary[0]",
    "a CKS added to the certifications",
    Sub("summary[0]", "holding the CKA and", "holding the CKA, CKS and"),
)
T.lie(
    "resume",
    "unit",
    "summary[2]",
    "100k requests per second become 1M",
    Sub("summary[2]", "100k requests", "1M requests"),
)
T.lie(
    "resume",
    "uncited",
    "summary[3]",
    "an uncited Stripe team lead",
    Add("summary", cite("I also led the SRE team at Stripe.")),
)
T.lie(
    "resume",
    "skill",
    "skills[14]",
    "Datadog is not in the profile",
    Add("skills", "Datadog"),
)
T.lie(
    "resume",
    "skill",
    "skills[2]",
    "Nomad is not in the profile (a tool outside any vocabulary)",
    Add("skills", "Nomad", at=2),
)
T.lie(
    "resume",
    "title",
    "experience[0].title",
    "Staff becomes Principal",
    Put("experience[0].title", "Principal Site Reliability Engineer"),
)
T.lie(
    "resume",
    "employer",
    "experience[2].company",
    "Trendyol becomes Hepsiburada",
    Put("experience[2].company", "Hepsiburada"),
)
T.lie(
    "resume",
    "dates",
    "experience[1].end",
    "Booking.com still current",
    Put("experience[1].end", "present"),
)
T.lie(
    "resume",
    "dates",
    "experience[2].start",
    "Trendyol from 2013, two years before",
    Put("experience[2].start", "2013-07"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "45 clusters become 450",
    Sub("experience[0].bullets[0]", "45 clusters", "450 clusters"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[0]",
    "99.99% availability becomes 99.999%",
    Sub("experience[0].bullets[0]", "99.99% availability", "99.999% availability"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[1]",
    "$2.1M becomes $21M",
    Sub("experience[0].bullets[1]", "$2.1M", "$21M"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[1]",
    "$2.1M becomes €2.1M",
    Sub("experience[0].bullets[1]", "$2.1M", "€2.1M"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[2]",
    "60 teams become 300 (the services moved at Booking.com)",
    Sub("experience[0].bullets[2]", "adopted by 60 teams", "adopted by 300 teams"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[2]",
    "recovery in 8 minutes, not 18",
    Sub("experience[0].bullets[2]", "to 18 minutes", "to 8 minutes"),
)
T.lie(
    "resume",
    "certification",
    "experience[0].bullets[3]",
    "a CKS added to the CKA highlight",
    Sub(
        "experience[0].bullets[3]",
        "Earned the Certified Kubernetes Administrator (CKA) certification in 2022.",
        "Earned the Certified Kubernetes Administrator (CKA) and Certified Kubernetes Security "
        "Specialist (CKS) certifications in 2022.",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[0]",
    "Crossplane added to Helm and Argo CD",
    Sub("experience[1].bullets[0]", "with Helm and Argo CD.", "with Helm, Argo CD and Crossplane."),
)
T.lie(
    "resume",
    "number_word",
    "experience[1].bullets[1]",
    "pages cut by ninety percent, not 70%",
    Sub("experience[1].bullets[1]", "by 70%", "by ninety percent"),
)
T.lie(
    "resume",
    "certification",
    "experience[1].bullets[2]",
    "a Google Cloud certification appended to the AWS one",
    Sub(
        "experience[1].bullets[2]",
        "exam in 2020.",
        "exam in 2020 and the Google Professional Cloud Architect exam in 2021.",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[2].bullets[0]",
    "SaltStack added beside Ansible",
    Sub("experience[2].bullets[0]", "with Ansible,", "with Ansible and SaltStack,"),
)
T.lie(
    "resume",
    "unit",
    "experience[2].bullets[0]",
    "setup time from two weeks, not two days",
    Sub("experience[2].bullets[0]", "from two days", "from two weeks"),
)
T.lie(
    "resume",
    "award",
    "experience[2].bullets[1]",
    "Employee of the Year appended",
    Sub(
        "experience[2].bullets[1]",
        "Black Friday peaks.",
        "Black Friday peaks and was named Trendyol's Employee of the Year.",
    ),
)
T.lie(
    "resume",
    "moved",
    "experience[2].bullets[2]",
    "the Adyen cloud savings placed under Trendyol",
    Add(
        "experience[2].bullets",
        cite(
            "Cut cloud spend by $2.1M a year by rightsizing node pools and moving batch "
            "workloads to spot instances.",
            "exp0.hl1",
        ),
    ),
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
    "school",
    "education[0].institution",
    "Istanbul Technical University becomes Boğaziçi University",
    Put("education[0].institution", "Boğaziçi University"),
)
T.lie(
    "resume",
    "certification",
    "extras[0]",
    "the CKA line becomes a CKS",
    Put("extras[0]", cite("Certified Kubernetes Security Specialist (CKS), 2022", "exp0.hl3")),
)
T.lie(
    "resume",
    "award",
    "extras[2]",
    "a Kubestronaut title citing the CKA highlight",
    Add("extras", cite("CNCF Kubestronaut, 2024", "exp0.hl3")),
)

# -- fabrications: the letter ----------------------------------------------------------------
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "ten years become thirteen",
    Sub("paragraphs[0].sentences[1]", "with ten years", "with thirteen years"),
)
T.lie(
    "letter",
    "quantity_swap",
    "paragraphs[1].sentences[0]",
    "45 clusters 'across 3 clouds' (3 is the Black Friday count)",
    Sub("paragraphs[1].sentences[0]", "of 45 clusters", "of 45 clusters across 3 clouds"),
)
T.lie(
    "letter",
    "unit",
    "paragraphs[1].sentences[1]",
    "$2.1M becomes $2.1B",
    Sub("paragraphs[1].sentences[1]", "$2.1M", "$2.1B"),
)
T.lie(
    "letter",
    "title",
    "paragraphs[1].sentences[2]",
    "Head of Infrastructure at Booking.com",
    Sub(
        "paragraphs[1].sentences[2]",
        "At Booking.com I moved",
        "At Booking.com, as Head of Infrastructure, I moved",
    ),
)
T.lie(
    "letter",
    "certification",
    "paragraphs[2].sentences[0]",
    "a CKS appended to the certifications",
    Sub(
        "paragraphs[2].sentences[0]",
        "Professional certifications.",
        "Professional certifications, and the CKS.",
    ),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[2].sentences[2]",
    "an uncited Cloudflare SRE role",
    Add(
        "paragraphs[2].sentences",
        cite("I was previously on the SRE team at Cloudflare."),
    ),
)
T.lie(
    "letter",
    "claim",
    "paragraphs[1].sentences[0]",
    "the platform 'patented'",
    Sub(
        "paragraphs[1].sentences[0]",
        "At Adyen I run the Kubernetes platform",
        "At Adyen I run the patented Kubernetes platform",
    ),
)
T.lie(
    "letter",
    "duration",
    "paragraphs[1].sentences[2]",
    "six years at Booking.com (2018-04 to 2021-12)",
    Sub(
        "paragraphs[1].sentences[2]",
        "At Booking.com I moved",
        "In my six years at Booking.com I moved",
    ),
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "reorder",
    "bullets and extras reordered, Trendyol kept",
    Keep("experience[0].bullets", (1, 0, 2)),
    Keep("experience[1].bullets", (1, 0)),
    Keep("extras", (1, 0)),
)
T.ok(
    "resume",
    "dates",
    "dates as 'Jan 2022 – Present', 'April 2018 – December 2021', '07/2015 – 03/2018'",
    Put("experience[0].start", "Jan 2022"),
    Put("experience[0].end", "Present"),
    Put("experience[1].start", "April 2018"),
    Put("experience[1].end", "December 2021"),
    Put("experience[2].start", "07/2015"),
    Put("experience[2].end", "03/2018"),
)
T.ok(
    "resume",
    "alias",
    "skills by alias: K8s, GCP, Golang, ArgoCD, Postgres, CI/CD pipelines",
    Put(
        "skills",
        [
            "K8s",
            "Terraform",
            "AWS",
            "GCP",
            "Golang",
            "Python",
            "Prometheus",
            "Postgres",
            "ArgoCD",
            "CI/CD pipelines",
        ],
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "highlights in other words",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Wrote an incident-review process that 60 teams adopted, bringing mean time to "
            "recovery down from 47 to 18 minutes.",
            "exp0.hl2",
        ),
    ),
    Put(
        "experience[2].bullets[1]",
        cite("Ran on-call for the e-commerce site through three Black Friday peaks.", "exp2.hl1"),
    ),
)
T.ok(
    "resume",
    "quantity_form",
    "100k as 100,000, $2.1M as USD 2.1 million, 70% as 70 per cent, two days as 2 days",
    Sub("experience[0].bullets[0]", "100k", "100,000"),
    Sub("experience[0].bullets[1]", "$2.1M", "USD 2.1 million"),
    Sub("experience[1].bullets[1]", "70%", "70 per cent"),
    Sub("experience[2].bullets[0]", "two days", "2 days"),
)
T.ok(
    "resume",
    "years",
    "the summary's years as a digit",
    Sub("summary[0]", "ten years", "10 years"),
)
T.ok(
    "letter",
    "merge",
    "the platform and the CKA in one sentence",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Adyen I run a Kubernetes platform of 45 clusters with 99.99% availability, and "
            "I earned my CKA in 2022.",
            "exp0.hl0",
            "exp0.hl3",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "the roles with their dates, '2018–2021'",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "Since January 2022 I have been a Staff Site Reliability Engineer at Adyen, after "
            "Booking.com (2018–2021).",
            "exp0",
            "exp1",
        ),
    ),
)
T.ok(
    "letter",
    "years",
    "ten years and the first role, in one sentence",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I have worked in operations and infrastructure for ten years, starting as a "
            "System Administrator at Trendyol in 2015.",
            "sum0",
            "exp2",
        ),
    ),
)
T.ok(
    "resume",
    "alias",
    "the headline with 'SRE' for site reliability engineer",
    Put("headline", cite("Staff SRE · Kubernetes platforms", "exp0", "exp0.hl0")),
)
T.ok(
    "letter",
    "paraphrase",
    "a sentence about the employer's product, citing nothing",
    Put(
        "paragraphs[2].sentences[1]",
        cite(
            "Mollie's payments platform is the kind of system I like to make boring, in the "
            "best sense."
        ),
    ),
)
T.ok(
    "resume",
    "skill_from_text",
    "Puppet listed: a highlight names it",
    Add("skills", "Puppet"),
)
T.ok(
    "letter",
    "quantity_form",
    "$2.1M written as 2.1 million dollars",
    Sub("paragraphs[1].sentences[1]", "by $2.1M a year", "by 2.1 million dollars a year"),
)
T.ok(
    "letter",
    "dates",
    "the degree with its years, '2011–2015'",
    Add(
        "paragraphs[2].sentences",
        cite(
            "I studied Computer Engineering at Istanbul Technical University (2011–2015).",
            "edu0",
        ),
        at=1,
    ),
)
T.lie(
    "letter",
    "title",
    "paragraphs[1].sentences[0]",
    "the posting's title claimed as her title at Adyen",
    Sub(
        "paragraphs[1].sentences[0]",
        "At Adyen I run",
        "As a Principal Platform Engineer at Adyen, I run",
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[2].bullets[0]",
    "cloud-init added beside Ansible, in lower case",
    Sub("experience[2].bullets[0]", "with Ansible,", "with Ansible and cloud-init,"),
)

# -- a second held-out set: new wordings, first run once against the checker --------------
T.ok(
    "letter",
    "paraphrase",
    "the incident-review highlight as a letter sentence, 'from 47 minutes to 18'",
    Add(
        "paragraphs[1].sentences",
        cite(
            "Sixty teams adopted the incident-review process I wrote, and mean time to "
            "recovery fell from 47 minutes to 18.",
            "exp0.hl2",
        ),
        at=2,
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "the AWS certification without 'Certified'",
    Put("extras[1]", cite("AWS Solutions Architect – Professional (2020)", "exp1.hl2")),
)
T.lie(
    "letter",
    "quantity_swap",
    "paragraphs[1].sentences[2]",
    "sixty teams become three hundred (the services moved at Booking.com)",
    Add(
        "paragraphs[1].sentences",
        cite(
            "Three hundred teams adopted the incident-review process I wrote, and mean time "
            "to recovery fell from 47 minutes to 18.",
            "exp0.hl2",
        ),
        at=2,
    ),
)
T.lie(
    "resume",
    "certification",
    "extras[1]",
    "Solutions Architect – Professional becomes Security – Specialty",
    Put("extras[1]", cite("AWS Certified Security – Specialty (2020)", "exp1.hl2")),
)
