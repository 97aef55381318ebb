"""A candidate profile for tests."""

TEST_PROFILE = {
    "name": "Ada Example",
    "contact": {"email": "ada@example.org", "location": "Berlin"},
    "summary": "Backend engineer building reliable Python services on PostgreSQL.",
    "skills": ["Python", "PostgreSQL", "Docker", "Kubernetes", "FastAPI"],
    "experience": [
        {
            "title": "Senior Backend Engineer",
            "company": "Example GmbH",
            "start": "2019-01",
            "end": "present",
            "bullets": [
                "Built Python and FastAPI services on PostgreSQL serving 2k requests per second.",
                "Moved 40 services to Kubernetes with Docker images and CI/CD pipelines.",
            ],
        }
    ],
    "education": [{"institution": "TU Berlin", "degree": "MSc", "field": "Computer Science"}],
}
