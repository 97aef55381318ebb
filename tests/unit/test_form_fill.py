"""What a form field asks for, which option answers it, and the plan for a whole form:
the rules of domain.form_fill, without a browser."""

from __future__ import annotations

import pytest

from jobctrl.domain.form_fill import (
    FormField,
    Option,
    answer_values,
    choose_option,
    plan,
    slot_of,
)
from jobctrl.domain.profile import Profile

PROFILE = Profile.model_validate(
    {
        "name": "Ada María Example",
        "contact": {
            "email": "ada@example.org",
            "phone": "+49 30 1234567",
            "location": "Berlin, Germany",
            "links": ["https://github.com/ada", "https://linkedin.com/in/ada", "https://ada.dev"],
        },
        "experience": [
            {"title": "Staff Engineer", "company": "Initech", "start": "2021", "end": "present"},
            {"title": "Engineer", "company": "Globex", "start": "2015", "end": "2021"},
        ],
        "answers": {
            "work_authorised": True,
            "needs_sponsorship": False,
            "notice_period": "3 months",
            "salary_expectation": "EUR 85,000",
            "how_did_you_hear": "Company website",
            "questions": [{"question": "Are you comfortable with on-call?", "answer": "Yes"}],
        },
    }
)
SAVED = [q.question for q in PROFILE.answers.questions]


def field(control="text", **kw) -> FormField:
    return FormField(mark="0:0", control=control, **kw)


@pytest.mark.parametrize(
    ("kw", "slot"),
    [
        ({"name": "job_application[first_name]", "label": "First Name"}, "first_name"),
        ({"name": "lastname", "label": "Last name"}, "last_name"),
        ({"name": "fld_02", "placeholder": "Surname *"}, "last_name"),
        ({"name": "name", "label": "Full name"}, "full_name"),
        ({"name": "_systemfield_name", "label": "Name"}, "full_name"),
        ({"name": "candidate[name]", "label": "Full name"}, "full_name"),
        ({"name": "contact", "label": "Your e-mail address"}, "email"),
        ({"id": "confirm-email-input", "label": "Confirm your email"}, "email"),
        ({"name": "phoneNumber", "label": "Phone number"}, "phone"),
        ({"name": "x", "autocomplete": "tel"}, "phone"),
        ({"name": "x", "autocomplete": "address-level2"}, "city"),
        ({"name": "job_application[location]", "label": "Location (City)"}, "location"),
        ({"name": "urls[LinkedIn]", "label": "LinkedIn URL"}, "linkedin"),
        ({"name": "urls[GitHub]", "label": "GitHub URL"}, "github"),
        ({"name": "urls[Portfolio]", "label": "Portfolio URL"}, "website"),
        ({"name": "org", "label": "Current company"}, "current_company"),
        ({"name": "headline", "label": "Headline"}, "current_title"),
        # a custom question is read by its label, never by its generated name
        ({"name": "job_application[answers_attributes][0][text_value]",
          "label": "LinkedIn Profile"}, "linkedin"),
        ({"name": "QA_1", "label": "How did you hear about us? (e.g. LinkedIn)"},
         "how_did_you_hear"),
        ({"name": "q", "label": "Will you now or in the future require sponsorship?"},
         "needs_sponsorship"),
        ({"name": "q", "label": "Are you legally authorized to work in Germany?"},
         "work_authorised"),
        ({"name": "q", "label": "Do you have the right to work in the EU?"}, "work_authorised"),
        ({"name": "q", "label": "Are you willing to relocate to Berlin?"},
         "willing_to_relocate"),
        ({"name": "q", "label": "What is your notice period?"}, "notice_period"),
        ({"name": "q", "label": "What are your salary expectations?"}, "salary_expectation"),
        ({"name": "q", "label": "What are your pronouns?"}, "pronouns"),
        ({"name": "q", "label": "Are you comfortable with on-call?"}, "question:0"),
        ({"name": "eeo[gender]", "label": "Gender"}, "eeo"),
        ({"name": "q", "label": "Veteran status"}, "eeo"),
        ({"name": "gdpr", "label": "I have read and agree to the privacy policy"}, "consent"),
        # a long question that mentions GitHub asks about something else
        ({"name": "q", "label": "Describe a project on GitHub and what it taught you"},
         None),
        ({"name": "q", "label": "Why do you want to work at Acme?"}, None),
    ],
)  # fmt: skip
def test_a_field_is_read_by_label_name_id_and_autocomplete(kw, slot):
    assert slot_of(field(**kw), SAVED) == slot


@pytest.mark.parametrize(
    ("kw", "slot"),
    [
        ({"name": "resume", "label": "Resume/CV"}, "resume"),
        ({"name": "candidate[cv]", "label": "CV or resume"}, "resume"),
        ({"name": "upload_b", "label": "Motivation letter"}, "cover_letter"),
        ({"name": "job_application[cover_letter]", "label": "Cover Letter"}, "cover_letter"),
        ({"name": "_systemfield_resume", "label": "Resume"}, "resume"),
        ({"name": "photo", "label": "Profile photo"}, None),
    ],
)
def test_file_inputs_take_the_resume_or_the_letter(kw, slot):
    assert slot_of(field("file", **kw)) == slot


def test_the_profile_answers_every_slot_it_can():
    values = answer_values(PROFILE, {"resume": "/tmp/r.pdf"})

    assert values["first_name"] == "Ada"
    assert values["last_name"] == "María Example"
    assert values["city"] == "Berlin"
    assert values["linkedin"] == "https://linkedin.com/in/ada"
    assert values["github"] == "https://github.com/ada"
    assert values["website"] == "https://ada.dev"  # not LinkedIn or GitHub
    assert values["current_company"] == "Initech"  # the current role's
    assert values["needs_sponsorship"] is False
    assert values["question:0"] == "Yes"
    assert values["resume"] == "/tmp/r.pdf"
    assert "pronouns" not in values and "willing_to_relocate" not in values  # not answered


def test_saved_links_come_before_the_contact_links():
    profile = PROFILE.model_copy(
        update={"answers": PROFILE.answers.model_copy(update={"portfolio": "https://p.example"})}
    )
    assert answer_values(profile)["website"] == "https://p.example"


YES_NO = (Option("0", "--"), Option("1", "Yes"), Option("2", "No"))


@pytest.mark.parametrize(
    ("options", "value", "chosen"),
    [
        (YES_NO, True, "Yes"),
        (YES_NO, False, "No"),
        ((Option("a", "Yes, I will require sponsorship"), Option("b", "No, I will not")),
         False, "No, I will not"),
        ((Option("a", "I am authorised to work here"),
          Option("b", "I am not authorised to work here")), True,
         "I am authorised to work here"),
        ((Option("a", "I am authorised to work here"),
          Option("b", "I am not authorised to work here")), False,
         "I am not authorised to work here"),
        ((Option("0", "Select..."), Option("1", "LinkedIn"), Option("2", "Company Website"),
          Option("3", "Other")), "Company website", "Company Website"),
        ((Option("0", "Germany"), Option("1", "France")), "Berlin, Germany", "Germany"),
        ((Option("1", "she/her"), Option("2", "he/him")), "she/her", "she/her"),
        ((Option("1", "LinkedIn"), Option("2", "Referral")), "A podcast", None),
        ((Option("0", "Please select"),), True, None),
        ((Option("1", "Maybe"), Option("2", "Sometimes"), Option("3", "Never")), True, None),
    ],
)  # fmt: skip
def test_an_option_is_chosen_by_its_text(options, value, chosen):
    option = choose_option(options, value)
    assert (option.text if option else None) == chosen


def test_the_plan_fills_what_it_knows_and_lists_what_the_person_must_answer():
    fields = [
        field(label="First name", name="first", required=True),
        FormField("0:1", "text", label="Email", name="email", filled=True),  # keeps its value
        FormField("0:2", "file", label="Resume", name="resume", required=True),
        FormField("0:3", "file", label="Cover letter", name="cover", required=True),
        FormField("0:4", "select", label="Do you require sponsorship?", options=YES_NO),
        FormField("0:5", "textarea", label="Why us?", required=True),
        FormField("0:6", "textarea", label="Anything else?"),  # optional: not listed
        FormField("0:7", "checkbox", label="I agree to the privacy policy", required=True),
        FormField("0:8", "select", label="Gender", required=True, options=YES_NO),
        FormField("0:9", "radio", label="How did you hear about us?", required=True,
                  options=(Option("0:10", "LinkedIn"), Option("0:11", "Referral"))),
        FormField("0:12", "text", label="Website"),
        FormField("0:13", "text", label="Other website"),  # one personal site is enough
    ]  # fmt: skip

    result = plan(fields, PROFILE, {"resume": "/tmp/Ada_Resume.pdf"})

    done = {a.field.mark: (a.slot, a.kind, a.value) for a in result.actions}
    assert done == {
        "0:0": ("first_name", "type", "Ada"),
        "0:2": ("resume", "attach", "/tmp/Ada_Resume.pdf"),
        "0:4": ("needs_sponsorship", "choose", "No"),
        "0:12": ("website", "type", "https://ada.dev"),
    }
    left = {item.field.mark: (item.slot, item.reason) for item in result.left}
    assert left == {
        "0:3": ("cover_letter", "file_missing"),
        "0:5": (None, "no_answer"),
        "0:7": ("consent", "consent"),
        "0:8": ("eeo", "eeo"),
        "0:9": ("how_did_you_hear", "no_option"),
    }


def test_a_single_checkbox_is_ticked_for_yes_and_left_for_no():
    relocate = FormField("0:0", "checkbox", label="I am willing to relocate")
    profile = PROFILE.model_copy(
        update={"answers": PROFILE.answers.model_copy(update={"willing_to_relocate": True})}
    )
    assert [a.kind for a in plan([relocate], profile).actions] == ["check"]
    profile = profile.model_copy(
        update={"answers": profile.answers.model_copy(update={"willing_to_relocate": False})}
    )
    assert plan([relocate], profile).actions == []


def test_a_yes_no_answer_is_written_out_in_a_text_field():
    [action] = plan([field(label="Will you require visa sponsorship?")], PROFILE).actions
    assert (action.kind, action.value) == ("type", "No")
