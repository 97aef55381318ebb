"""Nguyễn Thị Thu Hằng, a speech and language researcher in Tokyo, applying to Sakana AI."""

from __future__ import annotations

from tests.unit.truth_corpus.corpus import Add, Keep, Put, Spec, Sub, Table, cite

T = Table("hang")

SPEC = Spec(
    profile="hang",
    company="Sakana AI",
    role="Research Scientist, Speech",
    headline=cite("Senior Research Scientist · speech and language models", "exp0", "sum0"),
    extras=(
        cite("Interspeech 2023 best paper finalist", "exp0.hl2"),
        cite("Japanese: JLPT N1", "sum2"),
        cite("2 patents filed on streaming speech recognition", "exp0.hl3"),
    ),
    greeting="Dear Sakana AI team,",
    letter=(
        (
            cite("I am applying for the Research Scientist, Speech position at Sakana AI."),
            cite(
                "I am a machine learning researcher with a PhD in information science from "
                "The University of Tokyo and six years of industry research in speech and "
                "language models.",
                "sum0",
                "edu0",
            ),
        ),
        (
            cite(
                "At Preferred Networks I lead a team of 3 researchers training Japanese speech "
                "recognition models on 40,000 hours of audio; we reduced the character error "
                "rate by 18% relative.",
                "exp0.hl0",
            ),
            cite(
                "I also trained a 1.3B-parameter language model on 256 A100 GPUs and shipped a "
                "distilled 350M-parameter version to production.",
                "exp0.hl1",
            ),
            cite(
                "Earlier, at VinAI Research in Hà Nội, I created a 500-hour Vietnamese speech "
                "corpus and released it under CC BY 4.0.",
                "exp1.hl1",
            ),
        ),
        (
            cite(
                "I have published nine papers at venues including Interspeech and ACL, and I "
                "like turning research into models that ship.",
                "sum1",
            ),
            cite("I am fluent in Japanese (JLPT N1), Vietnamese and English.", "sum2"),
        ),
        (cite("Thank you for your time and consideration."),),
    ),
    table=T,
)

# -- fabrications: the resume ----------------------------------------------------------------
T.lie(
    "resume",
    "title",
    "headline",
    "Principal Research Scientist was never her title",
    Put("headline", cite("Principal Research Scientist · speech", "exp0")),
)
T.lie(
    "resume",
    "years",
    "headline",
    "ten years of research in the headline (six in industry)",
    Put("headline", cite("Research scientist · 10 years in speech research", "exp0", "sum0")),
)
T.lie(
    "resume",
    "school",
    "summary[0]",
    "the PhD placed at MIT",
    Sub("summary[0]", "a PhD in information science", "a PhD from MIT in information science"),
)
T.lie(
    "resume",
    "number_word",
    "summary[1]",
    "nine papers become nineteen",
    Sub("summary[1]", "nine papers", "nineteen papers"),
)
T.lie(
    "resume",
    "claim",
    "summary[1]",
    "NeurIPS added to the publication venues",
    Sub("summary[1]", "including Interspeech and ACL", "including Interspeech, ACL and NeurIPS"),
)
T.lie(
    "resume",
    "certification",
    "summary[2]",
    "a Korean certificate appended",
    Sub("summary[2]", "Japanese (JLPT N1).", "Japanese (JLPT N1), and Korean (TOPIK level 6)."),
)
T.lie(
    "resume",
    "skill",
    "skills[12]",
    "TensorFlow is not in the profile",
    Add("skills", "TensorFlow"),
)
T.lie(
    "resume",
    "skill",
    "skills[4]",
    "Kaldi is not in the profile (a tool outside any vocabulary)",
    Add("skills", "Kaldi", at=4),
)
T.lie(
    "resume",
    "title",
    "experience[1].title",
    "Research Scientist becomes Lead Research Scientist",
    Put("experience[1].title", "Lead Research Scientist"),
)
T.lie(
    "resume",
    "employer",
    "experience[2].company",
    "the NTT internship becomes Google DeepMind",
    Put("experience[2].company", "Google DeepMind"),
)
T.lie(
    "resume",
    "dates",
    "experience[2].end",
    "the three-month internship lasts fifteen months",
    Put("experience[2].end", "2019-09"),
)
T.lie(
    "resume",
    "quantity",
    "experience[0].bullets[1]",
    "a 1.3B-parameter model becomes 13B",
    Sub("experience[0].bullets[1]", "1.3B-parameter", "13B-parameter"),
)
T.lie(
    "resume",
    "tool",
    "experience[0].bullets[1]",
    "A100 GPUs become H100s",
    Sub("experience[0].bullets[1]", "256 A100 GPUs", "256 H100 GPUs"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[1]",
    "the distilled 350M-parameter model becomes 350B",
    Sub("experience[0].bullets[1]", "350M-parameter", "350B-parameter"),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[0]",
    "an 18% relative reduction becomes 18 percentage points",
    Sub("experience[0].bullets[0]", "by 18% relative", "by 18 percentage points"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[0].bullets[2]",
    "4 papers become 9 (the summary's total)",
    Sub("experience[0].bullets[2]", "Published 4 papers", "Published 9 papers"),
)
T.lie(
    "resume",
    "award",
    "experience[0].bullets[2]",
    "a best paper finalist becomes a best paper award",
    Sub(
        "experience[0].bullets[2]",
        "one was an Interspeech 2023 best paper finalist.",
        "one won the Interspeech 2023 best paper award.",
    ),
)
T.lie(
    "resume",
    "claim",
    "experience[0].bullets[3]",
    "the filed patents 'granted'",
    Sub(
        "experience[0].bullets[3]",
        "Filed 2 patents on streaming speech recognition.",
        "Filed 2 patents on streaming speech recognition, both granted.",
    ),
)
T.lie(
    "resume",
    "quantity",
    "experience[1].bullets[0]",
    "94.7 F1 becomes 97.4",
    Sub("experience[1].bullets[0]", "94.7 F1", "97.4 F1"),
)
T.lie(
    "resume",
    "quantity_swap",
    "experience[1].bullets[2]",
    "3 of 5 residents went on to PhDs; all 5 did (5 is the same line's other number)",
    Sub("experience[1].bullets[2]", "3 of whom", "5 of whom"),
)
T.lie(
    "resume",
    "tool",
    "experience[1].bullets[1]",
    "ESPnet recipes appended (a tool outside any vocabulary)",
    Sub(
        "experience[1].bullets[1]",
        "under CC BY 4.0.",
        "under CC BY 4.0 with ESPnet training recipes.",
    ),
)
T.lie(
    "resume",
    "moved",
    "experience[2].bullets[1]",
    "the Preferred Networks patents placed under the NTT internship",
    Add(
        "experience[2].bullets",
        cite("Filed 2 patents on streaming speech recognition.", "exp0.hl3"),
    ),
)
T.lie(
    "resume",
    "school",
    "education[0].institution",
    "the PhD moved to Kyoto University",
    Put("education[0].institution", "Kyoto University"),
)
T.lie(
    "resume",
    "degree",
    "education[2]",
    "a KAIST master's that never happened",
    Add(
        "education",
        {
            "fact": "edu1",
            "institution": "KAIST",
            "degree": "MSc",
            "field": "Electrical Engineering",
            "start": "2016",
            "end": "2016",
        },
        at=2,
    ),
)
T.lie(
    "resume",
    "award",
    "extras[3]",
    "an outstanding-reviewer award citing the real paper highlight",
    Add("extras", cite("Outstanding Reviewer, NeurIPS 2022", "exp0.hl2")),
)
T.lie(
    "resume",
    "claim",
    "extras[2]",
    "filed patents become granted",
    Sub("extras[2]", "2 patents filed", "2 patents granted"),
)

# -- fabrications: the letter ----------------------------------------------------------------
T.lie(
    "letter",
    "years",
    "paragraphs[0].sentences[1]",
    "six years of industry research become nine (nine is the paper count)",
    Sub("paragraphs[0].sentences[1]", "six years", "nine years"),
)
T.lie(
    "letter",
    "school",
    "paragraphs[0].sentences[1]",
    "the PhD placed at Stanford",
    Sub("paragraphs[0].sentences[1]", "The University of Tokyo", "Stanford University"),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[0]",
    "a team of 3 becomes 13",
    Sub("paragraphs[1].sentences[0]", "a team of 3 researchers", "a team of 13 researchers"),
)
T.lie(
    "letter",
    "quantity",
    "paragraphs[1].sentences[1]",
    "256 GPUs become 2,048",
    Sub("paragraphs[1].sentences[1]", "on 256 A100 GPUs", "on 2,048 A100 GPUs"),
)
T.lie(
    "letter",
    "unit",
    "paragraphs[1].sentences[1]",
    "1.3B parameters become 1.3T",
    Sub("paragraphs[1].sentences[1]", "1.3B-parameter", "1.3T-parameter"),
)
T.lie(
    "letter",
    "title",
    "paragraphs[1].sentences[2]",
    "Head of Speech at VinAI Research",
    Sub(
        "paragraphs[1].sentences[2]",
        "Earlier, at VinAI Research in Hà Nội,",
        "Earlier, as Head of Speech at VinAI Research in Hà Nội,",
    ),
)
T.lie(
    "letter",
    "duration",
    "paragraphs[1].sentences[2]",
    "four years at VinAI Research (2019-10 to 2022-03)",
    Sub(
        "paragraphs[1].sentences[2]",
        "Earlier, at VinAI Research in Hà Nội,",
        "Earlier, during four years at VinAI Research in Hà Nội,",
    ),
)
T.lie(
    "letter",
    "claim",
    "paragraphs[2].sentences[0]",
    "two NeurIPS orals appended",
    Sub(
        "paragraphs[2].sentences[0]",
        "including Interspeech and ACL,",
        "including Interspeech, ACL and two orals at NeurIPS,",
    ),
)
T.lie(
    "letter",
    "uncited",
    "paragraphs[2].sentences[2]",
    "an uncited visiting position at Google Brain",
    Add(
        "paragraphs[2].sentences",
        cite("I was also a visiting researcher at Google Brain in 2021."),
    ),
)

# -- a known gap -----------------------------------------------------------------------------
T.lie(
    "resume",
    "reversal",
    "experience[2].bullets[0]",
    "translation direction reversed: English to Japanese",
    Sub("experience[2].bullets[0]", "from Japanese to English", "from English to Japanese"),
    gap="a pure meaning change: no new name, number, tool, date or claim word",
)

# -- truthful rewrites -----------------------------------------------------------------------
T.ok("resume", "control", "the profile restated, every line cited")
T.ok("letter", "control", "the base letter")
T.ok(
    "resume",
    "subset",
    "the two research roles only, a skill subset, one degree",
    Keep("experience", (0, 1)),
    Keep("skills", (1, 0, 2, 3, 4, 5)),
    Keep("education", (0,)),
)
T.ok(
    "resume",
    "alias",
    "skills by alias: ASR, HF Transformers, K8s",
    Put("skills", ["PyTorch", "JAX", "CUDA", "Transformers", "ASR", "NLP", "K8s", "Docker"]),
)
T.ok(
    "resume",
    "dates",
    "dates as 'Apr 2022 – present', 'October 2019', '06/2018 – 09/2018'",
    Put("experience[0].start", "Apr 2022"),
    Put("experience[1].start", "October 2019"),
    Put("experience[1].end", "March 2022"),
    Put("experience[2].start", "06/2018"),
    Put("experience[2].end", "09/2018"),
    Put("education[0].start", "Oct 2016"),
    Put("education[0].end", "Sep 2019"),
)
T.ok(
    "resume",
    "quantity_form",
    "40,000 hours as 40k, 1.3B as 1.3 billion, 350M as 350 million",
    Sub("experience[0].bullets[0]", "40,000 hours", "40k hours"),
    Sub("experience[0].bullets[1]", "1.3B-parameter", "1.3-billion-parameter"),
    Sub("experience[0].bullets[1]", "350M-parameter", "350-million-parameter"),
)
T.ok(
    "resume",
    "paraphrase",
    "highlights in other words",
    Put(
        "experience[1].bullets[2]",
        cite("Mentored five research residents; three went on to PhD programmes.", "exp1.hl2"),
    ),
    Put(
        "experience[2].bullets[0]",
        cite(
            "Built a PyTorch prototype of Japanese-to-English end-to-end speech translation.",
            "exp2.hl0",
        ),
    ),
)
T.ok(
    "resume",
    "merge",
    "papers and patents in one bullet",
    Put(
        "experience[0].bullets",
        [
            cite(
                "Published 4 papers at Interspeech and ICASSP and filed 2 patents on streaming "
                "speech recognition.",
                "exp0.hl2",
                "exp0.hl3",
            ),
            cite(
                "Lead a team of 3 researchers training Japanese speech recognition models on "
                "40,000 hours of audio.",
                "exp0.hl0",
            ),
        ],
    ),
)
T.ok(
    "resume",
    "paraphrase",
    "a headline naming the PhD's school",
    Put("headline", cite("Research scientist, PhD (The University of Tokyo)", "exp0", "edu0")),
)
T.ok(
    "letter",
    "years",
    "years of industry research restated as a digit",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "I hold a PhD in information science and have 6 years of industry research "
            "experience in speech and language models.",
            "sum0",
        ),
    ),
)
T.ok(
    "letter",
    "dates",
    "the PhD and the roles with dates in a sentence",
    Put(
        "paragraphs[0].sentences[1]",
        cite(
            "After my PhD at The University of Tokyo (October 2016 to September 2019), I joined "
            "VinAI Research in 10/2019 and Preferred Networks in April 2022.",
            "edu0",
            "exp1",
            "exp0",
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the publications sentence in other words",
    Put(
        "paragraphs[2].sentences[0]",
        cite("Nine of my papers have appeared at venues such as Interspeech and ACL.", "sum1"),
    ),
)
T.ok(
    "resume",
    "alias",
    "'Ph.D.' for PhD and 'Sr.' for Senior",
    Put("education[0].degree", "Ph.D."),
    Put("experience[0].title", "Sr. Research Scientist"),
)
T.ok(
    "letter",
    "paraphrase",
    "contractions",
    Put(
        "paragraphs[2].sentences[0]",
        cite(
            "I've published nine papers at venues including Interspeech and ACL, and I'd like "
            "to keep turning research into models that ship.",
            "sum1",
        ),
    ),
)
T.lie(
    "resume",
    "tool",
    "experience[2].bullets[0]",
    "fairseq added beside PyTorch, in lower case",
    Sub("experience[2].bullets[0]", "in PyTorch.", "in PyTorch and fairseq."),
)

# -- a second held-out set: new wordings, first run once against the checker --------------
T.ok(
    "resume",
    "paraphrase",
    "the speech-recognition highlight reworded, ASR for speech recognition",
    Put(
        "experience[0].bullets[0]",
        cite(
            "Leading 3 researchers, trained Japanese ASR models on 40,000 hours of audio and "
            "cut character error rate 18% (relative).",
            "exp0.hl0",
        ),
    ),
)
T.ok(
    "letter",
    "paraphrase",
    "the speech corpus sentence reworded",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "At VinAI Research I built and openly released (CC BY 4.0) a Vietnamese speech "
            "corpus of 500 hours.",
            "exp1.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "unit",
    "experience[0].bullets[0]",
    "40,000 hours of audio become 400k",
    Sub("experience[0].bullets[0]", "40,000 hours", "400k hours"),
)
T.lie(
    "letter",
    "tool",
    "paragraphs[1].sentences[2]",
    "lhotse recipes added, in lower case, to a reworded sentence",
    Put(
        "paragraphs[1].sentences[2]",
        cite(
            "At VinAI Research I built and openly released (CC BY 4.0) a Vietnamese speech "
            "corpus of 500 hours, with lhotse recipes.",
            "exp1.hl1",
        ),
    ),
)
T.lie(
    "resume",
    "title",
    "headline",
    "Staff Research Scientist was never her title",
    Put("headline", cite("Staff Research Scientist · speech", "exp0", "sum0")),
)
