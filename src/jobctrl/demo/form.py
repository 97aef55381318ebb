"""The demo's application form: a plain company form served by the demo site at
``FORM_PATH``, for the browser prefill's dry run (the fields a real form asks: name,
contact, links, resume and cover letter, a question from the saved answers)."""

from __future__ import annotations

__all__ = ["FORM_HTML", "FORM_PATH"]

FORM_PATH = "/apply/application-form.html"

FORM_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Apply: Senior Backend Engineer</title></head>
<body>
<h1>Apply for this job</h1>
<form id="application" action="/apply/submit" method="post" enctype="multipart/form-data">
  <p><label for="first_name">First name</label>
    <input id="first_name" name="first_name" type="text" autocomplete="given-name" required></p>
  <p><label for="last_name">Last name</label>
    <input id="last_name" name="last_name" type="text" autocomplete="family-name" required></p>
  <p><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email" required></p>
  <p><label for="phone">Phone</label>
    <input id="phone" name="phone" type="tel" autocomplete="tel"></p>
  <p><label for="location">Where are you based?</label>
    <input id="location" name="location" type="text"></p>
  <p><label for="linkedin">LinkedIn profile</label>
    <input id="linkedin" name="linkedin" type="url"></p>
  <p><label for="github">GitHub</label>
    <input id="github" name="github" type="url"></p>
  <p><label for="resume">Resume/CV</label>
    <input id="resume" name="resume" type="file" accept=".pdf" required></p>
  <p><label for="cover_letter">Cover letter</label>
    <input id="cover_letter" name="cover_letter" type="file" accept=".pdf"></p>
  <p><label for="notice">What is your notice period?</label>
    <input id="notice" name="notice" type="text"></p>
  <p><button type="submit">Submit application</button></p>
</form>
</body></html>
"""
