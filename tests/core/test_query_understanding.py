"""Query understanding (core/memory/query_understanding.py): the owner, people, present states,
lists and question words, read from the words of a question and the names a store knows."""

from core.memory.known_names import known_names
from core.memory.query_understanding import understand
from storage.keyword.query import keyword_query

ALIASES = {"ana lima": "Ana Lima", "ana": "Ana Lima", "maya costa": "Maya Costa", "teo ramos": "Teo Ramos",
           "teo": "Teo Ramos", "will": "Will Hart", "will hart": "Will Hart", "maya r": "Maya Reis"}
NAMES = known_names(ALIASES, owner_senders=["Ana Lima"], owner_aliases=["Nana"])


def test_the_owner_is_known_by_every_name_and_each_word_of_one():
    assert {"ana", "lima", "ana lima", "nana"} <= NAMES.owner
    assert "ana" not in NAMES.people


def test_a_first_name_two_people_share_stands_for_neither():
    assert "maya" not in NAMES.people  # Maya Costa and Maya Reis
    assert NAMES.people["maya costa"] == "Maya Costa" and NAMES.people["teo"] == "Teo Ramos"


def test_the_owner_in_any_case_or_possessive_is_never_a_keyword():
    for query in ("Where did Ana first meet Teo?", "where did ANA first meet teo", "What is Ana's job?",
                  "What is Anas job?", "what is ana’s job"):
        intent = understand(query, NAMES)
        assert intent.owner_named
        assert "ana" in intent.drop or "anas" in intent.drop
        assert '"ana"' not in (keyword_query(query, drop=intent.drop, keep=intent.keep) or "")


def test_the_owners_own_words_in_first_and_third_person_and_other_languages():
    for query in ("What did I say about the knee?", "What did Ana say about the knee?",
                  "Was habe ich über das Knie gesagt?", "Что я говорил о колене?", "what did ana write to teo"):
        assert understand(query, NAMES, ["en"]).owner_words, query
    # the owner's mother said it, not the owner
    assert not understand("What did Ana's mother say?", NAMES).owner_words
    assert not understand("What did Teo tell me about the move?", NAMES).owner_words
    # "who" says it: the owner is the one told, or what was said is about them
    for query in ("Who told Ana to take the job in Berlin?", "Who said I was getting old?"):
        intent = understand(query, NAMES)
        assert not intent.owner_words and not intent.people_words, query


def test_people_named_are_recognised_and_their_names_kept_as_keywords():
    intent = understand("What did Teo tell me about the move?", NAMES)
    assert intent.people == ("Teo Ramos",) and intent.people_words == ("Teo Ramos",)
    assert "teo" in intent.keep and '"teo"' in keyword_query("What did Teo tell me about the move?",
                                                              drop=intent.drop, keep=intent.keep)
    # German puts the verb first: the subject after it is the speaker
    assert understand("Was sagte Teo über die Arbeit?", NAMES, ["de"]).people_words == ("Teo Ramos",)


def test_possessives_point_at_the_thing_near_the_person():
    intent = understand("What is Teo's dog called?", NAMES)
    assert intent.possessed == ("Teo Ramos",) and "dog" in intent.topic
    assert understand("What is Teos dog called?", NAMES).possessed == ("Teo Ramos",)


def test_a_name_that_is_a_common_word_counts_only_when_written_as_a_name():
    assert understand("What did Will say about the trip?", NAMES).people == ("Will Hart",)
    assert understand("what will the weather be", NAMES).people == ()


def test_present_states_in_several_languages():
    for query in ("Where do I live?", "where does Teo work now", "Is the group chat still called Lisbon Crew?",
                  "What do I do these days?", "Wo wohne ich jetzt?", "Où est-ce que j'habite maintenant ?",
                  "¿Dónde vivo ahora?", "Где я сейчас живу?"):
        # a short question's language may not be told: the store's languages count then
        assert understand(query, NAMES, ["de", "fr", "es", "ru"]).present, query
    for query in ("Where did I live in 2021?", "When did Ana move to Porto?", "Who did I meet at the wedding?"):
        assert not understand(query, NAMES).present, query


def test_a_present_marker_is_dropped_as_the_keyword_index_splits_it():
    # "aujourd'hui" is the index's terms "aujourd" and "hui": dropping the whole word dropped neither,
    # and every "aujourd'hui" of the store outranked the brother's new job
    intent = understand("Où travaille le frère de Mélodie aujourd'hui ?", NAMES, ["fr"])
    assert intent.present and {"aujourd", "hui"} <= intent.drop


def test_a_word_of_one_language_is_no_marker_in_another():
    assert not understand("What was the most expensive dinner?", NAMES).present  # Hungarian "most": now


def test_exhaustive_lists_are_recognised_and_their_filler_dropped():
    for query in ("List every time I went to the dentist", "all the places I lived",
                  "How many times did Teo cancel?", "Each time we went hiking, who came?",
                  "Combien de fois suis-je allée à Lyon ?", "Alle Orte, an denen ich gewohnt habe",
                  "Сколько раз я был в Берлине?"):
        assert understand(query, NAMES, ["fr", "de", "ru"]).exhaustive, query
    for query in ("Where did I go on holiday in 2022?", "Is Teo still in Berlin?", "Всё ещё в Берлине?"):
        assert not understand(query, NAMES).exhaustive, query
    intent = understand("List every time I went to the dentist", NAMES)
    assert keyword_query("List every time I went to the dentist", drop=intent.drop, keep=intent.keep) == '"went" OR "dentist"'


def test_question_words_weigh_nothing_in_the_keyword_half():
    assert keyword_query("When did we go to Porto?") == '"go" OR "porto"'
    assert keyword_query("Tell me about the wedding") == '"wed"'
    for query, language in (("Quand est-ce qu'on est allés à Porto ?", "fr"), ("¿Cuándo fuimos a Oporto?", "es"),
                            ("Когда мы ездили в Порту?", "ru"), ("Wann waren wir in Porto?", "de")):
        terms = keyword_query(query, [language]).split(" OR ")
        assert not {'"quand"', '"cuando"', '"когд"', '"wann"'} & set(terms), query
        assert any("port" in t or "порт" in t for t in terms)
    # a question of nothing but question words still asks for something
    assert keyword_query("what when who") is not None


def test_a_contracted_question_word_is_no_topic():
    # "who's" is "who" asked in the present, not a word the passages should hold
    assert understand("Who's our landlady in Giesing?", NAMES).topic == ("landlady", "giesing")
    assert understand("Where's Teo's office?", NAMES).topic == ("office",)
    assert "grandmother" in understand("When was my grandmother's party?", NAMES).topic


def test_a_known_name_is_never_dropped_as_a_stop_word():
    intent = understand("What did Will say?", NAMES)
    assert '"will"' in keyword_query("What did Will say?", drop=intent.drop, keep=intent.keep)


def test_names_leave_the_keyword_half_only_when_asked_to_and_something_else_is_asked():
    from core.memory.query_understanding import keyword_words

    intent = understand("What is Teo's job?", NAMES)
    assert keyword_words(intent, names_as_keywords=True) == (intent.drop, intent.keep)
    drop, keep = keyword_words(intent, names_as_keywords=False)
    assert "teo" in drop and not keep
    alone = understand("Teo", NAMES)
    assert keyword_words(alone, names_as_keywords=False) == (alone.drop, alone.keep)


def test_what_someone_is_called_is_no_present_state_without_a_marker():
    assert not understand("What is Teo's dog called?", NAMES).present
    assert understand("What is Teo's dog called now?", NAMES).present


def test_the_owner_asks_in_the_first_person_for_the_semantic_half():
    from core.memory.query_understanding import first_person

    assert first_person("Where does Ana live now?", NAMES) == "Where do I live now?"
    assert first_person("What is Ana's mother called?", NAMES) == "What is my mother called?"
    assert first_person("Did Ana Lima meet Teo?", NAMES) == "Did I meet Teo?"
    assert first_person("What is Teo's job?", NAMES) == "What is Teo's job?"


def asked(query: str) -> str:
    """The question as the hybrid's semantic half embeds it."""
    from core.memory.query_understanding import semantic_query

    return semantic_query(query, understand(query, NAMES), NAMES)


def test_the_semantic_half_asks_about_them_not_their_names():
    assert asked("What is Teo's job?") == "What is their job?"
    assert asked("Where did Ana first meet  Teo Ramos?") == "Where did I first meet them?"
    assert asked("What did Will say about the trip?") == "What did they say about the trip?"
    # a question of names alone keeps them: there is nothing else to embed
    assert asked("Who is Teo?") == "Who is Teo?"
    assert asked("what will the weather be") == "what will the weather be"


def test_one_word_stands_for_a_name_only_as_its_given_name():
    names = known_names({"clara weber": "Clara Weber", "maria da silva": "Maria da Silva",
                         "berlin marathon events": "Berlin Marathon Events", "run in lyon": "Run in Lyon"})
    assert names.people["clara"] == "Clara Weber" and names.people["maria"] == "Maria da Silva"
    assert "weber" not in names.people and "silva" not in names.people
    # a sender whose name is no person's: its words are the places and things questions ask about
    for word in ("berlin", "marathon", "events", "run", "lyon"):
        assert word not in names.people, word
    assert understand("When did Ana move to Berlin?", names).people == ()
    assert understand("What did Berlin Marathon Events send?", names).people == ("Berlin Marathon Events",)


def test_a_contact_saved_under_a_word_for_a_relative_is_that_relative():
    from core.memory.known_names import kin_at, kin_relation

    assert kin_relation("Mãe") == kin_relation("Mum ❤️") == kin_relation("Minha mãe") == "mother"
    assert kin_relation("Papa") == kin_relation("Vati") == "father"
    assert kin_relation("Oma") == "grandmother" and kin_relation("Irmão") == "brother"
    # a name beside the word, or words of two relations, is no relation
    assert kin_relation("Mama Rosa") is None and kin_relation("Mum Dad") is None
    assert kin_relation("Clara Weber") is None
    assert kin_at("mother's") == kin_at("Mum’s".lower()) == kin_at("mutter") == kin_at("mère") == "mother"
    assert kin_at("sister") == "sister" and kin_at("another") is None


def test_my_mother_in_any_language_is_the_contact_saved_as_one():
    names = known_names({**ALIASES, "mãe": "Mãe", "papa": "Papa"}, owner_senders=["Ana Lima"])
    assert names.kin == {"mother": ("Mãe",), "father": ("Papa",)}
    for query in ("What was my mother's old dog called?", "What was Mum's old dog called?",
                  "What was Ana's mother's old dog called?", "Wie hieß der Hund meiner Mutter?",
                  "Comment s'appelait le chien de ma mère ?", "What did mum say about the dog?"):
        intent = understand(query, names, ["de", "fr"])
        assert intent.people == ("Mãe",), query
        assert "dog" in intent.topic or "hund" in intent.topic or "chien" in intent.topic, query
    assert understand("What did my mother say about Porto?", names).people_words == ("Mãe",)
    # someone else's mother is not the owner's
    assert understand("What is Teo's mother called?", names).people == ("Teo Ramos",)
    # nobody saved so: the word is what it asks about
    intent = understand("What does my sister do?", names)
    assert intent.people == () and "sister" in intent.topic


def test_the_semantic_half_asks_about_a_relative_as_them():
    from core.memory.query_understanding import semantic_query

    names = known_names({**ALIASES, "mãe": "Mãe"}, owner_senders=["Ana Lima"])
    for query in ("What was Ana's mother's old dog called?", "What was my mother's old dog called?",
                  "What was Mum's old dog called?", "What was her mother's old dog called?"):
        assert semantic_query(query, understand(query, names), names) == "What was their old dog called?"
    # a pronoun's relative is one mention with the pronoun, as the owner's is ("her they" was left)
    for query in ("When did Ana fly to Porto to see her mother?", "When did Ana fly to Porto to see my mother?"):
        assert semantic_query(query, understand(query, names), names) == "When did I fly to Porto to see them?"


PROFILE = """# bio.md

## Summary
Ana's sister Maya is an architect.

## People & Relationships
- Maya Costa: my sister, an architect in Porto [doc3:10-40]
- Teo: partner since 2023
- Will Hart: best friend; Will's mother runs the bakery
- Maya R: sister-in-law

## Patterns
- calls her mother on Sundays
"""


def test_bio_md_says_who_is_whose_relative():
    from core.memory.known_names import profile_kin

    assert profile_kin(PROFILE, ALIASES) == [("sister", "Maya Costa"), ("partner", "Teo Ramos")]
    assert profile_kin("# bio.md\n\n## Summary\nMaya Costa is my sister.\n", ALIASES) == []
    names = known_names(ALIASES, owner_senders=["Ana Lima"], profile=PROFILE)
    assert names.kin == {"sister": ("Maya Costa",), "partner": ("Teo Ramos",)}
    intent = understand("What does my sister do for a living?", names)
    assert intent.people == ("Maya Costa",) and "sister" not in intent.topic
    for query in ("Where did I meet my boyfriend?", "Where did Ana meet her boyfriend?"):
        assert understand(query, names).people == ("Teo Ramos",), query
    assert understand("Where did Will meet Will's boyfriend?", names).people == ("Will Hart",)


def test_the_word_that_stands_for_a_person_names_them_in_passages_too():
    names = known_names({"clara weber": "Clara Weber", "maya costa": "Maya Costa", "maya reis": "Maya Reis"})
    assert set(names.names_of["Clara Weber"]) == {"clara weber", "clara"}
    assert names.names_of["Maya Costa"] == ("maya costa",)  # "maya" is two people's: neither's


def test_the_semantic_half_asks_a_list_as_one_instance_of_it():
    assert asked("List every city Ana has lived in.") == "city I have lived in."
    assert asked("How many times did Ana go to the dentist?") == "did I go to the dentist?"
    # whose list it is stays: "my" is what the list is of
    assert asked("List all my trips to Porto") == "my trips to Porto"
    assert asked("Every place Teo Ramos has lived.") == "place they have lived."
    # a question that is nothing but the asking keeps its words; one that asks no list is as it was
    assert asked("Name all") == "Name all"
    assert asked("Where does Teo live now?") == "Where do they live now?"


def test_a_question_that_combines_two_facts_is_split_at_its_time_clause():
    from core.memory.query_understanding import clauses

    assert clauses("How old was I when I moved to  Berlin?") == ("How old was I", "I moved to Berlin?")
    assert clauses("How long was Ana on crutches after the knee surgery?") == (
        "How long was Ana on crutches", "the knee surgery?")
    assert clauses("Was Tomás born before Mum adopted Pimenta?") == ("Was Tomás born", "Mum adopted Pimenta?")
    assert clauses("Quel âge avais-je quand je suis arrivée à Lyon ?", ["fr"]) == (
        "Quel âge avais-je", "je suis arrivée à Lyon ?")
    assert clauses("When Tomás was born, where did I live?") == ("Tomás was born", "where did I live?")
    # one fact: the joining word opens the question, or one side holds nothing to find
    assert clauses("When did I move to Berlin?") == ()
    assert clauses("When did I move to Berlin, and why?") == ()
    assert clauses("When did Ana meet up with her friends, family, and mentors?") == ()
    assert clauses("What did I do when?") == ()
    assert clauses("How long after meeting Teo did we move in together?") == ()
    assert clauses("Did my Berlin half marathon beat my Porto time?") == ()
    # "als" is as often "than" as "when": no split on it
    assert clauses("War Teo älter als Maya, als sie nach Berlin zog?", ["de"]) == ()


def test_a_relation_said_beside_a_name_is_the_same_person():
    # "my brother Teo" is Teo: the semantic half asks about them whole ("brother" drew the
    # question to every family chat's small talk)
    assert asked("What does my brother Teo do?") == "What do they do?"
    assert asked("What is Ana's brother Teo's profession?") == "What is their profession?"
    assert asked("What is her brother Teo Ramos called?") == "What are they called?"
    # someone else's relative stays theirs: their possessive is a mention of its own
    assert asked("What is Will's brother Teo's job?") == "What is their brother their job?"
    assert understand("What does my brother Teo do?", NAMES).people == ("Teo Ramos",)


def test_a_question_for_things_in_the_plural_asks_for_many():
    from core.memory.query_understanding import asks_for_many

    for query in ("What activities does Melanie partake in?", "What books has Maya read?",
                  "Which kinds of music do they like?", "what events has Teo been to",
                  # a plural of two or three words, "what are" and a plural, counting
                  "Which board games has Teo played?", "What LGBTQ+ events has Ana been to?",
                  "Which US cities does Teo mention visiting?", "What are Maya's favourite desserts?",
                  "What are the skills that Teo has taught?", "What are Maya's pets' names?",
                  "How many tournaments has Teo won?", "How many video game tournaments has Teo won?",
                  # plurals in a series
                  "What books, shows and podcasts have people recommended me?",
                  "Which cafés or bakeries did Maya like?", "What board games and card games has Teo played?"):
        assert asks_for_many(query), query
        intent = understand(query, NAMES)
        assert intent.many and not intent.exhaustive and intent.asks_for_list, query
    # one thing, or a verb where a plural would stand, a word that only ends in "s", a span of time
    for query in ("What is Maya's dog called?", "What does Teo do?", "Which city did Ana live in?",
                  "Where does Ana live now?", "What was the name of the bus?", "What are you doing?",
                  "What type of workout class did Ana start?", "What dance class does Maya go to?",
                  "How many years ago did Teo move?", "How many days has Ana been away?",
                  "What is the best thing Teo has cooked?", "What dog and cat does Ana have?",
                  "What book and show did Maya like?"):
        assert not asks_for_many(query), query
        assert not understand(query, NAMES).asks_for_list, query
    # "how many times" asks for every instance, and says so
    assert understand("How many times did Teo go to the dentist?", NAMES).exhaustive


def test_a_question_about_when_leaves_its_time_words_out_of_the_keyword_half():
    intent = understand("How long has Teo had his cats?", NAMES)
    assert intent.when and "long" in intent.drop and "long" not in intent.topic
    assert keyword_query("How long has Teo had his cats?", drop=intent.drop, keep=intent.keep) == '"teo" OR "cat"'
    what_year = understand("What year did Teo start surfing?", NAMES)
    assert what_year.when and "year" in what_year.drop
    # "when" joining two facts asks no time, and a question about something else keeps its words
    assert not understand("How old was I when I moved to Berlin?", NAMES).when
    assert "long" in understand("Is the Long Walk in Porto?", NAMES).topic


def test_the_semantic_question_agrees_with_the_pronouns_put_for_names():
    # the verb agrees with "I" and "they", before or after them
    assert asked("Where does Ana live?") == "Where do I live?"
    assert asked("Has Ana ever been to Japan?") == "Have I ever been to Japan?"
    assert asked("Where is Ana living at the moment?") == "Where am I living at the moment?"
    assert asked("Is Teo still seeing Will?") == "Are they still seeing them?"
    assert asked("What does Teo do for work?") == "What do they do for work?"
    # an object is "me" or "them": after a preposition, or a verb before a preposition or the end
    assert asked("What gifts has Teo given Ana?") == "What gifts have they given me?"
    assert asked("What did Ana get Teo for his birthday?") == "What did I get them for his birthday?"
    assert asked("Who went hiking with Ana?") == "Who went hiking with me?"
    # a subject stays one, and the question's own pronouns are left as they were
    assert asked("Was Ana at the party?") == "Was I at the party?"
    assert asked("What did Ana and Teo talk about?") == "What did I and they talk about?"
    assert asked("What did they say about it?") == "What did they say about it?"
    assert asked("Where was I when Teo called?") == "Where was I when they called?"
    # "like" after a pronoun is its verb as often as a preposition: left as it is
    from core.memory.query_understanding import _agreeing
    assert _agreeing("Which films that they like have I seen?") == "Which films that they like have I seen?"
    assert _agreeing("Who dances like I?") == "Who dances like me?"
