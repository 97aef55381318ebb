"""The truth check every generated document must pass: a tailored resume, a cover letter or
Apply's answers held, line by line, to the profile facts each line cites.

- ``document``: the walk over a document (``check_resume``, ``check_letter``, the
  ``assert_*_truthful`` gates, ``Finding``, ``FabricationError``); its structured fields
  compared in ``fields`` (names, titles, dates, degrees, skills);
- ``claims``: one sentence against the facts it cites (``check_sentence``,
  ``ClaimContext``), reading the sentence with ``quantities`` (numbers, dates, durations)
  and ``sentences`` (names, tools, degrees, claim words), and each clause's words with
  ``clauses`` (which cited fact a clause restates), ``grades`` (role verbs, graded) and
  ``content`` (the words that carry a claim, and the profile's own);
- ``aliases``: the alias list and the normal form names are compared in; ``lexicon``: which
  lower-case words are ordinary English or jargon (the list ships here:
  ``english_words.txt.gz``).

Callers import the module they need (``jobctrl.domain.truth.document``); this package
module imports none of them, so the modules' own order of imports is the only one. The
skill vocabulary the offline writer shares with the check stays in ``domain.vocabulary``.
"""
