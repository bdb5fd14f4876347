"""The words that make a text a question rather than say what it is about: interrogatives and the
filler people put around a question to an assistant ("when did", "tell me about", "do you
remember"), in every language the keyword index stems (storage/keyword/terms.py, STEMMERS).

They weigh nothing in the keyword half of search: "when" or "remember" in a question says how it
is asked, not what to find, and bm25 would otherwise reward the passages that happen to hold them.
Kept apart from languages.FUNCTION_WORDS on purpose: those also decide a chunk's language when it
is indexed, and these must not change how anything already stored was indexed.
"""

from __future__ import annotations

QUESTION_WORDS: dict[str, frozenset[str]] = {language: frozenset(words.split()) for language, words in {
    "en": """what when where which who whom whose why how whats wheres whos hows many much tell remind remember recall
             know mention mentioned happen happened happening please ever exactly kind sort list describe
             explain anything something""",
    "de": """was wann wo wohin woher welche welcher welches welchen welchem wer wen wem wessen warum wieso
             weshalb wie wieviel wieviele erzähl erzähle erinnerst erinnere weißt sag sage bitte eigentlich
             genau""",
    "fr": """quoi quand où ou quel quelle quels quelles qui que qu pourquoi comment combien lequel laquelle
             dis raconte rappelle souviens sais est-ce ce ça s'il plaît exactement""",
    "es": """qué que cuándo cuando dónde donde adónde cuál cual cuáles quién quien quiénes por porqué cómo
             cuánto cuánta cuántos cuántas dime cuéntame cuenta recuerdas acuerdas sabes favor exactamente""",
    "pt": """que quê quando onde aonde qual quais quem porque porquê como quanto quanta quantos quantas
             diga conta conte lembras lembra sabes sabe favor exatamente""",
    "it": """cosa che quando dove quale quali chi perché come quanto quanta quanti quante dimmi racconta
             ricordi sai favore esattamente""",
    "nl": """wat wanneer waar waarheen welk welke wie waarom hoe hoeveel vertel herinner weet alsjeblieft
             precies""",
    "id": """apa kapan dimana di mana mana siapa mengapa kenapa bagaimana berapa ceritakan ingat tahu tolong""",
    "tr": """ne neyi nerede nereye nereden ne zaman hangi kim kimi neden niye nasıl kaç anlat hatırlıyor
             biliyor""",
    "pl": """co kiedy gdzie który która które kto kogo dlaczego czemu jak ile powiedz opowiedz pamiętasz
             wiesz proszę""",
    "cs": """co kdy kde který která které kdo koho proč jak kolik řekni pověz pamatuješ víš prosím""",
    "sv": """vad när var vart vilken vilket vilka vem varför hur mycket många berätta minns vet""",
    "da": """hvad hvornår hvor hvilken hvilket hvilke hvem hvorfor hvordan mange fortæl husker ved""",
    "no": """hva når hvor hvilken hvilket hvilke hvem hvorfor hvordan mange fortell husker vet""",
    "fi": """mitä mikä milloin missä mihin mistä kuka ketä miksi miten kuinka montako kerro muistatko
             tiedätkö""",
    "ro": """ce când unde care cine de ce cum cât câte câți spune aminte știi""",
    "hu": """mi mit mikor hol hova melyik ki kit miért hogyan hány mennyi mondd emlékszel tudod""",
    "ca": """què quan on quin quina quins quines qui per què com quant quanta quants quantes digues
             recordes saps""",
    "ru": """что чего чем когда где куда откуда какой какая какое какие кто кого кому почему зачем как
             сколько скажи расскажи напомни помнишь знаешь пожалуйста именно""",
    "uk": """що чого коли де куди звідки який яка яке які хто кого кому чому навіщо як скільки скажи
             розкажи нагадай пам'ятаєш знаєш будь ласка""",
    "sr": """шта што када где куда који која које ко кога зашто како колико реци кажи сећаш знаш""",
    "el": """τι πότε πού ποιος ποια ποιο ποιοι γιατί πώς πόσο πόσα πόσοι πες θυμάσαι ξέρεις""",
    "ar": """ماذا ما متى أين اين أي اي من لماذا كيف كم أخبرني اخبرني تذكر هل""",
    "fa": """چه چی کی کجا کدام کدوم چرا چگونه چطور چند بگو یادت میدونی آیا""",
    "hi": """क्या कब कहाँ कहां कौन किस किसने क्यों कैसे कितना कितने बताओ बताइए याद""",
    "ne": """के कहिले कहाँ कुन को किन कसरी कति भन याद""",
    "ta": """என்ன எப்போது எங்கே எந்த யார் ஏன் எப்படி எத்தனை சொல்""",
    "hy": """ինչ երբ որտեղ որ ով ինչու ինչպես քանի ասա հիշում""",
}.items()}

ALL_QUESTION_WORDS: frozenset[str] = frozenset().union(*QUESTION_WORDS.values())


def question_words(languages: tuple[str, ...] | list[str] = ()) -> frozenset[str]:
    """English's and those of `languages` (a query is often asked in English of a store in
    another language, and the other way round)."""
    return QUESTION_WORDS["en"].union(*(QUESTION_WORDS.get(language, frozenset()) for language in languages))
