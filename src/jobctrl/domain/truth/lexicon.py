"""Is a lower-case word ordinary English (or ordinary software jargon)? The claim checker
asks this of a new word written where a tool goes ("with Jest, vitest and …", "in PyTorch
and fairseq"): a word that is neither English nor in the cited facts is a tool or product
the facts do not name.

The English list ships with jobctrl (``english_words.txt.gz``: the words of four letters
or more of Debian's wamerican and wbritish lists, from SCOWL; its notice is in
``english_words.NOTICE``). Jargon a truthful rewrite may add ("containerized", "webhooks",
"backfill") is listed here by hand, and a word counts as known when its stem is
("onboarded" from "onboard").
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources

__all__ = ["is_known_word"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Software and business words the English list lacks, in their base forms.
JARGON = _words(
    """api apis sdk sdks cli clis repo repos monorepo codebase codebases backend backends
    frontend frontends fullstack microservice microservices microfrontend serverless runtime
    runtimes dataset datasets pipeline workflow onboard onboarding offboarding dashboard
    endpoint config configs autoscale autoscaling autoscaler failover sharding shard
    sharded caching cron crontab etl elt devops devsecops mlops finops dataops gitops prod
    staging uptime downtime latency throughput backlog roadmap stakeholder kpi kpis okr okrs
    saas paas iaas fintech edtech healthtech insurtech proptech ecommerce omnichannel
    containerize containerization observability telemetry tracing alerting oncall postmortem
    runbook playbook slo slos sli slis sla slas mvp poc greenfield brownfield refactor
    refactoring linting linter typecheck typechecking codegen upstream downstream opensource
    plugin plugins middleware webapp webapps app apps realtime backfill dedupe deduplicate
    deduplication schema schemas orm nosql jsonb json yaml xml csv parquet avro protobuf
    protobufs http https tcp udp dns cdn tls ssl sso oauth saml jwt rbac iam vpc vpn gpu gpus
    cpu cpus tpu tpus ram ssd vm vms webhook webhooks async sync syncing frontend lakehouse
    datastore datastores datalake datamart warehousing upsert upserts idempotent idempotency
    ingest ingestion reindex reindexing tokenizer tokenization embeddings finetune finetuning
    pretrain pretraining inference hyperparameter hyperparameters benchmark benchmarking
    multithreaded multithreading concurrency parallelize parallelization scalability
    scalable rollout rollouts rollback rollbacks deploy deploys redeploy hotfix hotfixes
    bugfix bugfixes changelog checklist toolchain toolchains toolkit toolkits framework
    frameworks codebase subsystem subsystems microservice multicloud hybrid cloudnative
    kubernetes namespace namespaces sidecar sidecars ingress egress loadbalancer
    loadbalancing autoscaled replica replicas replication failback geo geolocation
    analytics telematics fleet fleets payouts payout checkout chargeback chargebacks
    onchain offchain blockchain crypto wallet wallets ledger ledgers reconciliation
    compliance gdpr hipaa pci soc iso audit audits auditing pentest pentesting
    accessibility usability wireframe wireframes mockup mockups prototype figma storyboard
    persona personas copywriting localization internationalization translation
    transcription diarization multilingual crosslingual multimodal unimodal
    preprocessing postprocessing dataloader dataloaders checkpoint checkpoints
    checkpointing quantization quantize distillation distill distilled finetuned
    eval evals evaluation hackathon hackathons meetup meetups guild guilds chapter
    standup standups retro retros retrospective offsite onsite hybrid remote
    email emails inbox chatbot chatbots voicebot copilot autocomplete autocompletion
    signup signups login logins logout onboarded upskill upskilling reskill mentee mentees
    headcount org orgs reorg teammate teammates cofounder cross-functional crossfunctional
    ai ml nlp llm llms genai rag vector vectors embedding"""
)
_SUFFIXES = ("ing", "ed", "es", "s", "er", "ers", "ation", "ations", "ization", "ly")


@functools.cache
def _english() -> frozenset[str]:
    data = resources.files("jobctrl.domain.truth").joinpath("english_words.txt.gz").read_bytes()
    return frozenset(gzip.decompress(data).decode("utf-8").split())


def _stems(word: str) -> list[str]:
    out = [word]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            out += [base, base + "e"]
            if len(base) > 3 and base[-1] == base[-2]:  # "shipped" -> "ship"
                out.append(base[:-1])
            if base.endswith("i"):  # "companies" -> "company"
                out.append(base[:-1] + "y")
    return out


@functools.lru_cache(maxsize=16384)
def is_known_word(word: str) -> bool:
    """``word`` (lower case) is English or common jargon, in any of its simple forms; a
    hyphenated word when each of its pieces is; words under four letters always."""
    if len(word) < 4:
        return True
    if "-" in word:
        return all(is_known_word(piece) for piece in word.split("-") if piece)
    english = _english()
    if any(stem in english or stem in JARGON for stem in _stems(word)):
        return True
    # a British spelling the list has only in its American form ("parallelised")
    american = _BRITISH.sub(lambda m: m.group(1) + "z", word)
    return american != word and any(stem in english or stem in JARGON for stem in _stems(american))


_BRITISH = re.compile(r"(?<=[a-z]{3})([iy])s(?=(?:e|ed|es|ing|ation|ations|er|ers)\b)")
