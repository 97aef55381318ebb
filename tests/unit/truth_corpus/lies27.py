"""Lies that cite the real facts they bend (issue 27), on every profile, in resumes and
letters, where a lying model puts them. None adds a name, number or tool the cited facts
lack; each is caught by one of the claim checker's recall rules:

- ``invented``: a bullet or sentence of duties and domains no fact states, citing a real
  role ("Negotiated vendor contracts and owned the annual hardware procurement budget");
- ``fusion``: two true facts fused, a number put with what another fact did;
- ``grade``: a role verb above the fact's ("Led" for "Built", "Owned" for "Wrote");
- ``about``: "about N" with a figure the fact does not have ("about 55M" for 50M+);
- ``duration_sum``: years at one employer that only the sum of the cited entries covers;
- ``entry_named``: real work placed at another cited employer, title or place.
"""

from __future__ import annotations

from tests.unit.truth_corpus import agnieszka, chiamaka, hang, luisa, sebastien, sebnem
from tests.unit.truth_corpus.corpus import Add, Put, Sub, cite

# -- agnieszka: a data engineer (Allegro, ING Hubs Poland, Comarch) ----------------------------
T = agnieszka.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[1].bullets[3]",
    "procurement duties invented under the ING role",
    Add(
        "experience[1].bullets",
        cite(
            "Negotiated vendor contracts and owned the annual hardware procurement budget.",
            "exp1",
        ),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[2].sentences[0]",
    "performance reviews and salary budgets added to leading the team",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "Today I lead a team of five data engineers and handle their salary reviews and "
            "hiring budgets.",
            "exp0.hl3",
            "sum2",
        ),
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[0].bullets[0]",
    "the incident drop of the data contracts given to the BigQuery migration",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Led the migration of 1,200 Airflow DAGs from Hadoop to BigQuery, cutting "
            "broken-dashboard incidents from 11 to 2 per quarter.",
            "exp0.hl0",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[0]",
    "the 140 core tables of the data contracts given to the streaming pipeline",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Allegro I built a Kafka and Spark Structured Streaming pipeline that ingests "
            "clickstream events for 140 core tables.",
            "exp0.hl1",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[0].bullets[1]",
    "the streaming pipeline she built becomes one she owned",
    Sub("experience[0].bullets[1]", "Built a Kafka", "Owned the Kafka"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[2]",
    "the 25 jobs she moved become a move she led",
    Sub("paragraphs[1].sentences[2]", "I moved 25 nightly", "I led the move of 25 nightly"),
)
T.lie(
    "resume",
    "about",
    "experience[0].bullets[1]",
    "50M+ events become about 55M",
    Sub("experience[0].bullets[1]", "50M+ clickstream", "about 55M clickstream"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[1]",
    "140 core tables become about 150",
    Sub("paragraphs[1].sentences[1]", "for 140 core", "for about 150 core"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[1].sentences[2]",
    "five years at ING Hubs Poland (2018-06 to 2021-02), citing Allegro's entry too",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "Before Allegro, during five years at ING Hubs Poland, I moved 25 nightly batch "
            "jobs from cron to Airflow and raised on-time delivery from 91% to 99.5%.",
            "exp1.hl1",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[3]",
    "four years at ING Hubs Poland, citing Allegro's entry too",
    Add(
        "summary",
        cite(
            "Spent four years at ING Hubs Poland on anti-money-laundering reconciliation.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[1].sentences[2]",
    "the cron-to-Airflow move of ING placed at Allegro",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "At Allegro, I also moved 25 nightly batch jobs from cron to Airflow and raised "
            "on-time delivery from 91% to 99.5%.",
            "exp1.hl1",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "ING's reconciliation jobs placed at Comarch",
    Add(
        "summary",
        cite(
            "At Comarch I designed the Scala and Spark jobs that reconcile 3 million card "
            "transactions a night.",
            "exp1.hl0",
            "exp2",
        ),
    ),
)

# -- luisa: a frontend engineer (Farfetch, Nubank, Resultados Digitais) ------------------------
T = luisa.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[1].bullets[3]",
    "security audits and payment-processor contracts invented under the Nubank role",
    Add(
        "experience[1].bullets",
        cite(
            "Handled the quarterly vendor security audits and negotiated the payment-processor "
            "contracts.",
            "exp1",
        ),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[2].sentences[0]",
    "fraud and chargeback operations appended to the Nubank screens",
    Sub(
        "paragraphs[2].sentences[0]",
        "used by 12 million customers.",
        "used by 12 million customers, and handled its fraud and chargeback operations.",
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[0].bullets[0]",
    "the CDN saving of the AVIF pipeline given to the checkout rebuild",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Rebuilt the checkout in React and TypeScript, saving €400k a year in CDN costs.",
            "exp0.hl0",
            "exp0.hl3",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[0]",
    "the checkout's conversion lift given to the component library",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Farfetch I lead the design-system team, and our component library lifted "
            "mobile conversion by 4.2% across 190 countries.",
            "exp0.hl1",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[1].bullets[1]",
    "the GraphQL schema she wrote becomes work she led",
    Sub(
        "experience[1].bullets[1]",
        "Wrote the GraphQL schema and the Apollo client layer",
        "Led the GraphQL schema and Apollo client work",
    ),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[1]",
    "the checkout she rebuilt becomes a rebuild she owned",
    Sub("paragraphs[1].sentences[1]", "I rebuilt the checkout", "I owned the checkout rebuild"),
)
T.lie(
    "resume",
    "about",
    "experience[1].bullets[0]",
    "12 million customers become about 15 million",
    Sub("experience[1].bullets[0]", "used by 12 million", "used by about 15 million"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[2]",
    "accessibility training for 120 engineers becomes about 125",
    Sub("paragraphs[1].sentences[2]", "for 120 engineers", "for about 125 engineers"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[0].sentences[1]",
    "five years as a product designer at Resultados Digitais (2017-03 to 2019-12)",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I spent five years as a product designer at Resultados Digitais before building "
            "frontends at Nubank and Farfetch.",
            "exp2",
            "exp1",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[0]",
    "four years at Farfetch (since 2022-05), citing Nubank's entry too",
    Put(
        "summary[0]",
        cite(
            "Frontend engineer with eight years of experience, including four years at Farfetch.",
            "sum0",
            "exp0",
            "exp1",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[2].sentences[0]",
    "the Nubank credit-card screens placed at Farfetch",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "At Farfetch, I built the React Native screens for the credit-card limit flow used "
            "by 12 million customers.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "Nubank's test coverage placed in Lisbon (Farfetch's city)",
    Add(
        "summary",
        cite(
            "In Lisbon I raised unit-test coverage of the web app from 35% to 80% with Jest "
            "and Testing Library.",
            "exp1.hl2",
            "exp0",
        ),
    ),
)

# -- hang: a speech researcher (Preferred Networks, VinAI Research, NTT) ------------------------
T = hang.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[2].bullets[1]",
    "GPU procurement and a compute budget invented under the internship",
    Add(
        "experience[2].bullets",
        cite("Handled the lab's GPU procurement and its annual compute budget.", "exp2"),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[2].sentences[0]",
    "grant reviewing for funding agencies appended to the publications",
    Sub(
        "paragraphs[2].sentences[0]",
        "and I like turning research into models that ship.",
        "and I have reviewed grant proposals for national funding agencies.",
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[0].bullets[1]",
    "the speech team's 40,000 hours of audio given to the language model",
    Put(
        "experience[0].bullets[1]",
        cite(
            "Trained a 1.3B-parameter language model on 40,000 hours of audio using 256 A100 GPUs.",
            "exp0.hl1",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[1]",
    "the speech models' 18% error reduction given to the language model",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I also trained a 1.3B-parameter language model on 256 A100 GPUs that reduced the "
            "character error rate by 18% relative.",
            "exp0.hl1",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[1].bullets[2]",
    "residents she mentored become residents she supervised",
    Sub("experience[1].bullets[2]", "Mentored 5", "Supervised 5"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[2]",
    "the corpus she created becomes a creation she led",
    Sub("paragraphs[1].sentences[2]", "I created a 500-hour", "I led the creation of a 500-hour"),
)
T.lie(
    "resume",
    "about",
    "experience[1].bullets[0]",
    "94.7 F1 becomes nearly 96",
    Sub("experience[1].bullets[0]", "reaching 94.7 F1", "reaching nearly 96 F1"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[0]",
    "40,000 hours of audio become roughly 45,000",
    Sub("paragraphs[1].sentences[0]", "on 40,000 hours", "on roughly 45,000 hours"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[1].sentences[2]",
    "over four years at VinAI Research (2019-10 to 2022-03), citing Preferred Networks too",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "Earlier, over four years at VinAI Research in Hà Nội, I created a 500-hour "
            "Vietnamese speech corpus and released it under CC BY 4.0, before joining "
            "Preferred Networks.",
            "exp1.hl1",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[0]",
    "five years at Preferred Networks (since 2022-04), citing VinAI's entry too",
    Put(
        "summary[0]",
        cite(
            "Machine learning researcher with a PhD in information science, including five "
            "years at Preferred Networks.",
            "sum0",
            "exp0",
            "exp1",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[1].sentences[0]",
    "the Preferred Networks speech team placed at VinAI Research",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At VinAI Research I led a team of 3 researchers training Japanese speech "
            "recognition models on 40,000 hours of audio.",
            "exp0.hl0",
            "exp1",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "the Preferred Networks language model placed in the PhD",
    Add(
        "summary",
        cite(
            "During my PhD at The University of Tokyo I trained a 1.3B-parameter language "
            "model on 256 A100 GPUs.",
            "exp0.hl1",
            "edu0",
        ),
    ),
)

# -- sebastien: an engineering manager (Zalando, BlaBlaCar, Criteo) -----------------------------
T = sebastien.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[0].bullets[4]",
    "the issue's example: procurement duties invented under the Zalando role",
    Add(
        "experience[0].bullets",
        cite(
            "Negotiated vendor contracts and owned the annual hardware procurement budget.",
            "exp0",
        ),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[1].sentences[3]",
    "works-council negotiations and salary benchmarking invented at Zalando",
    Add(
        "paragraphs[1].sentences",
        cite(
            "At Zalando I also handled the works-council negotiations and the yearly salary "
            "benchmarking.",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[0].bullets[3]",
    "the SLOs' incident cut given to the Kotlin move",
    Put(
        "experience[0].bullets[3]",
        cite(
            "Led the move of 30 Java services to Kotlin on Kubernetes, cutting payment-service "
            "incidents by 45% year over year.",
            "exp0.hl3",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[2].sentences[0]",
    "Criteo's 2 million requests per second given to BlaBlaCar's trip search",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "Before Zalando I led the 7-person search team at BlaBlaCar, where we rebuilt trip "
            "search in Go to handle 2 million requests per second at peak.",
            "exp1.hl0",
            "exp2.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[2].bullets[0]",
    "bidding services he built become services he led",
    Sub("experience[2].bullets[0]", "Built bidding services", "Led the bidding services"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[1]",
    "the incident cut becomes an SLO rollout he headed",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I headed the SLO rollout that cut payment-service incidents by 45% year over year.",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "resume",
    "about",
    "experience[0].bullets[0]",
    "€1.8B of gross merchandise value becomes about €1.9B",
    Sub("experience[0].bullets[0]", "processing €1.8B", "processing about €1.9B"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[2]",
    "14 engineers hired become about 15",
    Sub("paragraphs[1].sentences[2]", "I hired 14 engineers", "I hired about 15 engineers"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[2].sentences[0]",
    "six years at BlaBlaCar (2017 to 2021), citing Zalando's entry too",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "Before Zalando I spent six years at BlaBlaCar leading the 7-person search team, "
            "and we rebuilt trip search in Go.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[3]",
    "six years at Criteo (09/2013 to 12/2016), citing BlaBlaCar's entry too",
    Add(
        "summary",
        cite("Six years at Criteo taught me to build for scale.", "exp2", "exp2.hl0", "exp1"),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[2].sentences[1]",
    "Criteo's bidding services placed at BlaBlaCar",
    Put(
        "paragraphs[2].sentences[1]",
        cite(
            "At BlaBlaCar I built bidding services in Java that handled 2 million requests per "
            "second at peak.",
            "exp2.hl0",
            "exp1",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "Criteo's cache work credited to the BlaBlaCar team-lead title",
    Add(
        "summary",
        cite(
            "As Engineering Team Lead I reduced the ad server's memory footprint by 30% by "
            "replacing an in-house cache with Caffeine.",
            "exp2.hl1",
            "exp1",
        ),
    ),
)

# -- sebnem: a site reliability engineer (Adyen, Booking.com, Trendyol) ------------------------
T = sebnem.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[2].bullets[2]",
    "hardware procurement and a vendor budget invented under the Trendyol role",
    Add(
        "experience[2].bullets",
        cite("Handled the data-centre hardware procurement and the annual vendor budget.", "exp2"),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[1].sentences[2]",
    "hotel fraud-scoring rules appended to the Booking.com move",
    Sub(
        "paragraphs[1].sentences[2]",
        "with Helm and Argo CD.",
        "with Helm and Argo CD, and rewrote the fraud-scoring rules for hotel payments.",
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[0].bullets[2]",
    "the platform's 45 clusters given to the incident-review process",
    Put(
        "experience[0].bullets[2]",
        cite(
            "Wrote the incident-review process for the Kubernetes platform, cutting mean time "
            "to recovery from 47 to 18 minutes across 45 clusters.",
            "exp0.hl2",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[2]",
    "Adyen's 100k requests per second given to Booking.com's search platform",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "At Booking.com I built the Prometheus and Grafana dashboards and SLO alerts for a "
            "search platform serving 100k requests per second.",
            "exp1.hl1",
            "exp0.hl0",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[1].bullets[0]",
    "300 services she moved become a move she led",
    Sub("experience[1].bullets[0]", "Moved 300 services", "Led the move of 300 services"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[1]",
    "the cloud-spend cut becomes a rightsizing she led",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "I led the rightsizing of node pools and the move of batch workloads to spot "
            "instances, cutting cloud spend by $2.1M a year.",
            "exp0.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "about",
    "experience[2].bullets[0]",
    "800 Linux servers become about 850",
    Sub("experience[2].bullets[0]", "of 800 Linux", "of about 850 Linux"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[0]",
    "100k payment requests per second become about 110k",
    Sub("paragraphs[1].sentences[0]", "serves 100k payment", "serves about 110k payment"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[1].sentences[2]",
    "nearly five years at Booking.com (2018-04 to 2021-12), citing Adyen's entry too",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "In nearly five years at Booking.com I moved 300 services from Puppet-managed VMs "
            "to Kubernetes with Helm and Argo CD.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[3]",
    "five years at Trendyol (2015-07 to 2018-03), citing Booking.com's entry too",
    Add(
        "summary",
        cite(
            "Spent five years at Trendyol automating 800 Linux servers with Ansible.",
            "exp2.hl0",
            "exp1",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[1].sentences[2]",
    "the Booking.com move to Kubernetes placed at Adyen",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "At Adyen I moved 300 services from Puppet-managed VMs to Kubernetes with Helm and "
            "Argo CD.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "Trendyol's Black Friday on-call placed at Booking.com",
    Add(
        "summary",
        cite(
            "At Booking.com I ran the on-call rotation for the e-commerce site through 3 Black "
            "Friday peaks.",
            "exp2.hl1",
            "exp1",
        ),
    ),
)

# -- chiamaka: a mobile engineer (Monzo, Paystack, Andela) -------------------------------------
T = chiamaka.SPEC.table
T.lie(
    "resume",
    "invented",
    "experience[0].bullets[4]",
    "app-store contracts and a device-lab budget invented under the Monzo role",
    Add(
        "experience[0].bullets",
        cite(
            "Negotiated the app-store vendor contracts and handled the annual device-lab budget.",
            "exp0",
        ),
    ),
)
T.lie(
    "letter",
    "invented",
    "paragraphs[1].sentences[1]",
    "fraud screening and merchant underwriting appended to the Paystack app",
    Sub(
        "paragraphs[1].sentences[1]",
        "which passed 1M downloads.",
        "which passed 1M downloads, and handled its fraud screening and merchant underwriting.",
    ),
)
T.lie(
    "resume",
    "fusion",
    "experience[1].bullets[1]",
    "the payment-link sharing's 40,000 merchants given to the smaller Android app",
    Put(
        "experience[1].bullets[1]",
        cite(
            "Shrank the Android app from 48 MB to 19 MB with app bundles and R8 for 40,000 "
            "merchants in its first month.",
            "exp1.hl1",
            "exp1.hl2",
        ),
    ),
)
T.lie(
    "letter",
    "fusion",
    "paragraphs[1].sentences[0]",
    "the crash-free sessions of four releases given to the SwiftUI screens",
    Put(
        "paragraphs[1].sentences[0]",
        cite(
            "At Monzo I rebuilt the card-freeze and spending-limit screens in SwiftUI, raising "
            "crash-free sessions from 99.2% to 99.85%.",
            "exp0.hl0",
            "exp0.hl2",
        ),
    ),
)
T.lie(
    "resume",
    "grade",
    "experience[2].bullets[1]",
    "the Espresso suite she wrote becomes one she owned",
    Sub("experience[2].bullets[1]", "Wrote the Espresso", "Owned the Espresso"),
)
T.lie(
    "letter",
    "grade",
    "paragraphs[1].sentences[0]",
    "the screens she rebuilt become a rebuild she led",
    Sub(
        "paragraphs[1].sentences[0]",
        "At Monzo I rebuilt the card-freeze",
        "At Monzo I led the rebuild of the card-freeze",
    ),
)
T.lie(
    "resume",
    "about",
    "experience[1].bullets[2]",
    "40,000 merchants become about 45,000",
    Sub("experience[1].bullets[2]", "used by 40,000", "used by about 45,000"),
)
T.lie(
    "letter",
    "about",
    "paragraphs[1].sentences[0]",
    "9 million customers become about 9.5 million",
    Sub("paragraphs[1].sentences[0]", "for 9 million", "for about 9.5 million"),
)
T.lie(
    "letter",
    "duration_sum",
    "paragraphs[0].sentences[1]",
    "five years at Paystack (2019-02 to 2022-08), citing Monzo's entry too",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I am a mobile engineer with seven years of experience, including five years at "
            "Paystack.",
            "sum0",
            "exp0",
            "exp1",
        ),
    ),
)
T.lie(
    "resume",
    "duration_sum",
    "summary[3]",
    "four years at Monzo (since 2022-09), citing Paystack's entry too",
    Add(
        "summary",
        cite(
            "Four years at Monzo taught me to ship small release trains.",
            "exp0",
            "exp0.hl2",
            "exp1",
            "sum1",
        ),
    ),
)
T.lie(
    "letter",
    "entry_named",
    "paragraphs[1].sentences[1]",
    "the Paystack merchant app placed at Monzo",
    Put(
        "paragraphs[1].sentences[1]",
        cite(
            "At Monzo I also led a team of six building the merchant app in React Native, "
            "which passed 1M downloads.",
            "exp1.hl0",
            "exp0",
        ),
    ),
)
T.lie(
    "resume",
    "entry_named",
    "summary[3]",
    "the Andela client apps placed in London (Monzo's city)",
    Add(
        "summary",
        cite(
            "In London I built Android apps in Kotlin for three US clients in logistics and "
            "health.",
            "exp2.hl0",
            "exp0",
        ),
    ),
)
