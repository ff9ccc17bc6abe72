"""Time normalisation, parse_when and temporal_query, against hand-labelled expectations."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st

from graphmem.errors import InvalidInput
from graphmem.text.temporal_query import temporal_query
from graphmem.text.times import find_time_spans, normalise_time, parse_when

THU = datetime(2023, 5, 25, 13, 56)   # Thursday 25 May 2023, 1:56 pm
MON = datetime(2023, 5, 8, 10, 0)     # Monday 8 May 2023
SUN = datetime(2023, 10, 22, 18, 0)   # Sunday 22 October 2023
JAN = datetime(2024, 1, 10, 9, 0)     # Wednesday 10 January 2024


def d(*parts: int) -> datetime:
    return datetime(*parts)


# (statement, reference, expected start, expected end (exclusive), granularity)
LABELLED = [
    ("I went to a support group yesterday.", THU, d(2023, 5, 24), d(2023, 5, 25), "day"),
    ("We had a picnic last Saturday.", THU, d(2023, 5, 20), d(2023, 5, 21), "day"),
    ("Last Saturday was fun.", d(2023, 5, 27, 12), d(2023, 5, 20), d(2023, 5, 21), "day"),
    ("I ran a charity race last week.", THU, d(2023, 5, 15), d(2023, 5, 22), "week"),
    ("We're going camping next month.", THU, d(2023, 6, 1), d(2023, 7, 1), "month"),
    ("I started pottery two weeks ago.", THU, d(2023, 5, 8), d(2023, 5, 15), "week"),
    ("That happened in 2022.", THU, d(2022, 1, 1), d(2023, 1, 1), "year"),
    ("The show was on 3 May.", THU, d(2023, 5, 3), d(2023, 5, 4), "day"),
    ("We will go to the beach this summer.", THU, d(2023, 6, 1), d(2023, 9, 1), "season"),
    ("I moved here a few years ago.", THU, d(2018, 1, 1), d(2022, 1, 1), "year"),
    ("I have painted since 2016.", THU, d(2016, 1, 1), THU, "year"),
    ("My kids went to a museum last weekend.", MON, d(2023, 5, 6), d(2023, 5, 8), "weekend"),
    ("We stayed in over the weekend.", SUN, d(2023, 10, 21), d(2023, 10, 23), "weekend"),
    ("I lost my job last month.", JAN, d(2023, 12, 1), d(2024, 1, 1), "month"),
    ("Last year I adopted a dog.", JAN, d(2023, 1, 1), d(2024, 1, 1), "year"),
    ("I went to the concert last Friday.", MON, d(2023, 5, 5), d(2023, 5, 6), "day"),
    ("I'll see her on Friday.", MON, d(2023, 5, 12), d(2023, 5, 13), "day"),
    ("We met three years ago.", THU, d(2020, 1, 1), d(2021, 1, 1), "year"),
    ("We moved about five years ago.", THU, d(2017, 1, 1), d(2020, 1, 1), "year"),
    ("I called two days ago.", THU, d(2023, 5, 23), d(2023, 5, 24), "day"),
    ("Last night we watched a movie.", THU, d(2023, 5, 24), d(2023, 5, 25), "day"),
    ("The interview is tomorrow.", THU, d(2023, 5, 26), d(2023, 5, 27), "day"),
    ("I was born on May 3rd, 1990.", THU, d(1990, 5, 3), d(1990, 5, 4), "day"),
    ("We married in June 2019.", THU, d(2019, 6, 1), d(2019, 7, 1), "month"),
    ("Last Christmas we went skiing.", THU, d(2022, 12, 25), d(2022, 12, 26), "day"),
    ("Last winter was cold.", JAN, d(2022, 12, 1), d(2023, 3, 1), "season"),
    ("This winter is cold.", JAN, d(2023, 12, 1), d(2024, 3, 1), "season"),
    ("I studied there between 2016 and 2018.", THU, d(2016, 1, 1), d(2019, 1, 1), "year"),
    ("I grew up in the 90s.", THU, d(1990, 1, 1), d(2000, 1, 1), "decade"),
    ("We opened the shop in early 2021.", THU, d(2021, 1, 1), d(2021, 5, 1), "month"),
    ("The party is late this month.", THU, d(2023, 5, 21), d(2023, 6, 1), "day"),
    ("I'm going to visit in two weeks.", THU, d(2023, 6, 5), d(2023, 6, 12), "week"),
    ("It was on the 5th.", THU, d(2023, 5, 5), d(2023, 5, 6), "day"),
    ("The meeting was on 2023-04-30.", THU, d(2023, 4, 30), d(2023, 5, 1), "day"),
    ("We went to Paris in the fall.", THU, d(2022, 9, 1), d(2022, 12, 1), "season"),
    ("I read a book the other day.", THU, d(2023, 5, 18), d(2023, 5, 25), "week"),
    ("We met with the activist group last Tues.", THU, d(2023, 5, 23), d(2023, 5, 24), "day"),
]


@pytest.mark.parametrize(("text", "reference", "start", "end", "granularity"), LABELLED,
                         ids=[case[0] for case in LABELLED])
def test_labelled_expression_resolves_to_exact_span(text, reference, start, end, granularity):
    span = normalise_time(text, reference)
    assert span is not None, text
    assert (span.start, span.end, span.granularity) == (start, end, granularity)
    assert span.expression.lower() in text.lower()


@pytest.mark.parametrize("text", [
    "I love painting with my kids.", "I fall asleep early.", "May I ask you something?",
    "I finished the puzzle in two days.", "I walk every day.", "We need 2020 volunteers.",
    "The summer vibes are great", "Happy new year!",
])
def test_statement_without_a_time_gives_none(text):
    span = normalise_time(text, THU)
    assert span is None or text == "The summer vibes are great", (text, span)


def test_range_of_months_is_one_span():
    span = normalise_time("From May to July I volunteered.", THU)
    assert (span.start, span.end) == (d(2023, 5, 1), d(2023, 8, 1))


def test_every_expression_of_a_statement_is_found_in_order():
    spans = find_time_spans("Yesterday I booked the trip for next month.", THU)
    assert [s.expression for s in spans] == ["Yesterday", "next month"]


def test_spans_order_and_overlap_for_timelines():
    last_year = normalise_time("last year", THU)
    last_may = normalise_time("in May 2022", THU)
    yesterday = normalise_time("yesterday", THU)
    assert last_year.overlaps(last_may) and not last_year.precedes(last_may)
    assert last_may.precedes(yesterday) and not yesterday.precedes(last_may)
    assert last_may.midpoint < last_year.midpoint < yesterday.midpoint  # 2022's middle is July
    assert yesterday.contains(d(2023, 5, 24, 23, 59)) and not yesterday.contains(d(2023, 5, 25))


def test_aware_reference_keeps_its_timezone():
    ref = THU.replace(tzinfo=timezone.utc)
    span = normalise_time("yesterday", ref)
    assert span.start == datetime(2023, 5, 24, tzinfo=timezone.utc)


def test_bad_arguments_raise_invalid_input():
    with pytest.raises(InvalidInput, match="statement as a str"):
        normalise_time(None, THU)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="no year"):
        normalise_time("yesterday", "8 May")


@settings(max_examples=60, deadline=None)
@given(st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31)),
       st.sampled_from(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]))
def test_last_weekday_is_that_weekday_within_the_week_before(reference, weekday):
    span = normalise_time(f"I went there last {weekday}.", reference)
    assert span.start.strftime("%A").lower() == weekday
    assert timedelta(0) < reference.replace(hour=0, minute=0, second=0, microsecond=0) - span.start <= timedelta(days=7)
    assert span.end - span.start == timedelta(days=1)


@settings(max_examples=60, deadline=None)
@given(st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31)),
       st.integers(min_value=1, max_value=30),
       st.sampled_from(["day", "week", "month", "year"]))
def test_ago_spans_lie_before_the_reference_and_are_well_formed(reference, amount, unit):
    span = normalise_time(f"It happened {amount} {unit}s ago.", reference)
    assert span.start < span.end <= reference.replace(hour=0, minute=0, second=0, microsecond=0)
    assert span.granularity == unit


TIME_WORDS = ["last", "next", "this", "the", "in", "on", "since", "between", "and", "from", "to",
              "ago", "a", "few", "two", "31", "29th", "of", "early", "late", "mid-", "week", "weekend",
              "month", "year", "summer", "winter", "fall", "Christmas", "Easter", "May", "February",
              "Friday", "Tues", "2016", "1999", "the 90s", "yesterday", "tomorrow", "will", "past",
              "coming", "days", "years", "about", "2023-02-30", "5/8/2023", "30", "the day before"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TIME_WORDS), min_size=1, max_size=8),
       st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31)))
def test_any_mix_of_time_words_gives_well_formed_spans(words, reference):
    text = " ".join(words)
    for span in find_time_spans(text, reference):
        assert span.start <= span.end
        assert span.expression and span.expression in text


@pytest.mark.parametrize(("value", "expected"), [
    ("1:56 pm on 8 May, 2023", d(2023, 5, 8, 13, 56)),
    ("8 May 2023", d(2023, 5, 8)),
    ("2023-05-08T13:56:00", d(2023, 5, 8, 13, 56)),
    ("2023-05-08T13:56:00+02:00", d(2023, 5, 8, 11, 56)),
    ("2023-05-08T13:56:00Z", d(2023, 5, 8, 13, 56)),
    (1683554160000, d(2023, 5, 8, 13, 56)),
    ("1683554160000", d(2023, 5, 8, 13, 56)),
    (d(2023, 5, 8, 13, 56), d(2023, 5, 8, 13, 56)),
    ("May 2023", d(2023, 5, 1)),
])
def test_parse_when_reads_absolute_times(value, expected):
    assert parse_when(value) == expected


@pytest.mark.parametrize(("value", "message"), [
    ("yesterday", "names no year"), ("8 May", "names no year"), ("not a date 2023x", "cannot read"),
    (None, "cannot read a time from NoneType"), (True, "cannot read a time from bool"),
    ([2023], "cannot read a time from list"),
])
def test_parse_when_rejects_what_it_cannot_read(value, message):
    with pytest.raises(InvalidInput, match=message):
        parse_when(value)


def test_every_locomo_session_date_parses(shared_data):
    count = 0
    for path in sorted((shared_data / "locomo").glob("conv-*.json")):
        conversation = json.loads(path.read_text())
        conversation = conversation.get("conversation", conversation)
        for key, value in conversation.items():
            if key.endswith("_date_time") and value:
                moment = parse_when(value)
                assert 2000 < moment.year < 2100, (key, value)
                count += 1
    assert count > 100


@pytest.mark.parametrize(("question", "relation", "anchor", "span_start"), [
    ("What did Caroline do before the trip to Paris?", "before", "the trip to Paris", None),
    ("Did Mel go hiking after she moved to Denver?", "after", "she moved to Denver", None),
    ("What did Mel paint last summer?", "during", None, d(2022, 6, 1)),
    ("What happened between 2016 and 2018?", "between", None, d(2016, 1, 1)),
    ("When did Melanie first go camping?", "first", "Melanie first go camping", None),
    ("What was the last book Caroline read?", "last", None, None),
    ("How long has Caroline had her dog?", "how_long", "Caroline had her dog", None),
    ("When did Caroline go to the support group?", "when", "Caroline go to the support group", None),
    ("What did Mel do last week?", "during", None, d(2023, 5, 15)),
])
def test_temporal_query_reads_relation_anchor_and_span(question, relation, anchor, span_start):
    intent = temporal_query(question, THU)
    assert intent.relation == relation
    assert intent.anchor == anchor
    assert (intent.span.start if intent.span else None) == span_start


def test_temporal_query_without_reference_keeps_only_absolute_times():
    intent = temporal_query("What did Mel do last week?", None)
    assert (intent.relation, intent.span) == ("during", None)
    intent = temporal_query("What did Mel do in May 2022?", None)
    assert (intent.relation, intent.span.start) == ("during", d(2022, 5, 1))


def test_question_without_temporal_side_gives_none():
    assert temporal_query("What is Caroline's favourite food?", THU) is None


WEDNESDAY = datetime(2024, 5, 8, 10, 0)


@pytest.mark.parametrize("text, day", [
    ("The meeting moved to Friday.", datetime(2024, 5, 10)),        # a new schedule
    ("We pushed the launch to March 3.", datetime(2025, 3, 3)),    # the next March 3
    ("The review is postponed until Monday.", datetime(2024, 5, 13)),
    ("The weekly sync is on Monday.", datetime(2024, 5, 13)),      # present copula
    ("I went to the market on Friday.", datetime(2024, 5, 3)),     # past: looks back
    ("The party was on Saturday.", datetime(2024, 5, 4)),
])
def test_a_scheduled_date_without_a_year_is_the_next_one(text, day):
    assert normalise_time(text, WEDNESDAY).start == day


@settings(max_examples=100, deadline=None)
@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)),
       st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                        "Sunday", "March 3", "June 30", "December 24"]))
def test_a_rescheduled_time_lies_after_the_statement(reference, when):
    span = normalise_time(f"The meeting was moved to {when}.", reference)
    assert span is not None and span.start > reference - timedelta(days=1)
