"""The demo candidate: a backend/data engineer who fits some demo postings and not others.

``DEMO_PROFILE`` has the shape of the ``profile:`` block in config.yaml (``Profile``); it
fits the Harborline posting very well, Fernbank and Quillstack fairly well, and the Kestrel
manager, design and research postings poorly, so ``make demo`` shows a spread of scores.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEMO_PROFILE"]

DEMO_PROFILE: dict[str, Any] = {
    "name": "Priya Raman",
    "contact": {
        "email": "priya.raman@example.com",
        "phone": "+44 7700 900123",
        "location": "Leeds, United Kingdom",
        "links": [
            "https://github.com/priya-raman-demo",
            "https://www.linkedin.com/in/priya-raman-demo",
        ],
    },
    "summary": (
        "Backend engineer with nine years of experience building Python services and data "
        "pipelines on AWS. I like owning systems end to end, from API design and PostgreSQL "
        "schemas to CI/CD and on-call. I write things down, value clear written "
        "communication, and enjoy mentoring engineers earlier in their careers."
    ),
    "skills": [
        "Python",
        "Django",
        "FastAPI",
        "PostgreSQL",
        "SQL",
        "Redis",
        "Docker",
        "Kubernetes",
        "AWS",
        "Terraform",
        "Airflow",
        "Kafka",
        "CI/CD",
        "REST APIs",
        "Mentoring",
    ],
    "experience": [
        {
            "title": "Senior Backend Engineer",
            "company": "Lumen Freight",
            "start": "2021-04",
            "end": "present",
            "location": "Leeds, United Kingdom",
            "bullets": [
                "Led the redesign of the shipment-tracking API in FastAPI, cutting p95 latency "
                "from 900 ms to 180 ms.",
                "Moved 40 services from EC2 to Kubernetes (EKS) with Terraform-managed "
                "infrastructure on AWS.",
                "Built an event pipeline on Kafka that processes 12 million carrier updates a day.",
                "Mentored four engineers and ran the backend guild's design reviews.",
                "Introduced contract tests and a GitHub Actions CI/CD pipeline that halved "
                "deploy time.",
            ],
        },
        {
            "title": "Software Engineer",
            "company": "Brightwell Analytics",
            "start": "2017-09",
            "end": "2021-03",
            "location": "Manchester, United Kingdom",
            "bullets": [
                "Built Django services and PostgreSQL data models for a retail analytics "
                "product used by 60 clients.",
                "Wrote Airflow DAGs that load 2 TB of point-of-sale data into the warehouse "
                "every night.",
                "Tuned slow SQL queries and added Redis caching, reducing dashboard load times "
                "by 70%.",
                "Worked with product managers and customer success to scope and ship quarterly "
                "features.",
            ],
        },
        {
            "title": "Junior Developer",
            "company": "Northgate Digital",
            "start": "2016-07",
            "end": "2017-08",
            "location": "Leeds, United Kingdom",
            "bullets": [
                "Maintained PHP and JavaScript websites for agency clients and wrote the "
                "agency's first automated test suite.",
            ],
        },
    ],
    "education": [
        {
            "institution": "University of Leeds",
            "degree": "BSc",
            "field": "Computer Science",
            "start": "2013",
            "end": "2016",
        }
    ],
}
