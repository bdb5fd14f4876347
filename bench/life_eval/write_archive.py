"""Writes the life archive of bench/life_eval: one invented person, Inês Duarte, from January 2022
to October 2024, in the export formats Biographer's importers read. Everything here was written
for this evaluation (no real person, no copied text); the chatter between the facts is drawn
from small hand-written pools with a fixed seed, so the files come out the same every time.

    python bench/life_eval/write_archive.py   # (re)writes bench/life_eval/archive/

The facts the questions ask about are the FACTS below; bench/life_eval/questions.jsonl holds the
questions with the exact strings of their evidence. Nothing in Biographer's code reads either.
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))  # exports.py, the formats the lives are written in
import exports  # noqa: E402

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "archive"
OWNER = "Inês Duarte"
TO = f"{OWNER} <ines.duarte@example.org>"
LISBON, BERLIN, PARIS = ZoneInfo("Europe/Lisbon"), ZoneInfo("Europe/Berlin"), ZoneInfo("Europe/Paris")
START, END = datetime(2022, 1, 3), datetime(2024, 10, 20)

# (source, "YYYY-MM-DD HH:MM", sender, text): the evidence, where it was said
FACTS: list[tuple[str, str, str, str]] = [
    # --- Rafael (WhatsApp Android, Portuguese and English)
    ("rafael", "2022-02-11 19:02", "Rafael Sousa", "A Sofia aceitou! Vamos casar, mas só daqui a dois anos"),
    ("rafael", "2022-04-24 13:40", OWNER, "Finished the Porto half marathon in 1:58, my legs are dead"),
    ("rafael", "2022-10-21 09:15", OWNER, "Knee surgery went well, the surgeon says six weeks on crutches"),
    ("rafael", "2023-02-26 18:30", "Rafael Sousa", "I can lend you my van to take your boxes to the shipping company for the move"),
    ("rafael", "2023-06-02 21:10", "Rafael Sousa", "I quit the hospital. Starting the physiotherapy degree in September"),
    ("rafael", "2023-09-03 20:00", "Rafael Sousa", "Save the date: the wedding is on 14 September 2024 at Quinta da Aveleda"),
    ("rafael", "2024-03-19 22:05", "Rafael Sousa", "Still love Linda Martini more than any band, the new album is perfect"),
    ("rafael", "2024-09-15 11:30", OWNER, "Best wedding ever. Lukas danced with your grandmother until 3am"),
    # --- Mãe (WhatsApp iOS, Portuguese)
    ("mae", "2022-03-06 10:12", "Mãe", "O Farrusco comeu outra vez as tuas sapatilhas velhas"),
    ("mae", "2023-01-15 20:44", "Mãe", "Vai, filha. Berlim é uma oportunidade e nós estamos aqui"),
    ("mae", "2023-11-08 07:55", "Mãe", "O Farrusco morreu esta noite, a dormir. Tinha catorze anos"),
    ("mae", "2023-12-23 16:20", OWNER, "Aterrei no Porto! Chego a casa às seis para o Natal"),
    ("mae", "2024-03-30 12:00", OWNER, "Cheguei para a Páscoa, o voo de Berlim atrasou duas horas"),
    ("mae", "2024-04-14 18:02", "Mãe", "Adotámos uma cadela, chama-se Pimenta e já roeu o sofá"),
    ("mae", "2024-09-12 19:30", OWNER, "Estou no Porto para o casamento do Rafael, fico até domingo"),
    # --- Beatriz, the sister (WhatsApp iOS)
    ("bia", "2022-05-12 08:00", "Beatriz Duarte", "Parabéns mana! 28 anos, estás velha"),
    ("bia", "2022-09-05 17:45", "Beatriz Duarte", "Passed the licensing exam, I am officially an architect now!"),
    ("bia", "2024-01-30 06:10", "Beatriz Duarte", "O Tomás nasceu às 4h20, 3,2 kg, estamos os dois bem"),
    ("bia", "2024-06-20 21:00", "Beatriz Duarte", "Who told you Lyon was boring? Tomás wants to visit the Croix-Rousse"),
    # --- the hiking group (WhatsApp Android group)
    ("group", "2022-06-18 08:30", "Rafael Sousa", "Trilho do Gerês amanhã às 7h, levem água que não há fontes"),
    ("group", "2023-09-09 12:15", "Rafael Sousa", "Proposta: mudamos o nome do grupo para Trilhos & Tascas, já que comemos mais do que andamos"),
    ("group", "2024-05-04 10:00", "Marta Lopes", "Fotos do trilho da Peneda estão no álbum partilhado"),
    # --- Clara (Telegram, German and English)
    ("clara", "2022-07-02 20:10", "Clara Weber", "You have to read Pachinko, I cried on the U-Bahn"),
    ("clara", "2022-11-19 18:00", "Clara Weber", "I work as a midwife at the Altona hospital now, finally a permanent contract"),
    ("clara", "2023-03-16 09:30", "Clara Weber", "Willkommen in Berlin! Hamburg is only two hours by train, come and visit me"),
    ("clara", "2023-08-27 17:25", "Clara Weber", "Mochi knocked my coffee over the laptop again, the cat is a menace"),
    ("clara", "2023-10-10 21:40", "Clara Weber", "Next book for you: Stoner by John Williams. Quiet and devastating"),
    ("clara", "2024-02-05 19:00", "Clara Weber", "Big news: I am moving to Munich in April, the birth centre there hired me"),
    ("clara", "2024-07-22 20:30", "Clara Weber", "Read The Overstory on the train to Munich, you will never look at trees the same way"),
    # --- Lukas (Telegram, English and German)
    ("lukas", "2023-05-21 10:05", "Lukas Brandt", "Nice meeting you at Südbloc yesterday! Same wall on Thursday?"),
    ("lukas", "2023-06-10 19:30", "Lukas Brandt", "I grew up in Freiburg, the Black Forest is basically my back garden"),
    ("lukas", "2023-07-14 12:00", "Lukas Brandt", "Careful with the pad thai, I am allergic to peanuts, remember?"),
    ("lukas", "2023-11-26 16:45", "Lukas Brandt", "Berlin winters are grey for five months, you will survive"),
    ("lukas", "2024-01-07 11:11", OWNER, "Ok, let's do it: we move in together on the first of February"),
    ("lukas", "2024-02-11 08:50", OWNER, "Someone stole my Gazelle bike from the courtyard last night"),
    ("lukas", "2024-05-02 21:15", "Lukas Brandt", "The Lyon office said yes, I can work remotely from France"),
    ("lukas", "2024-08-05 18:20", OWNER, "Picked up the cargo bike today, the orange Bullitt, it climbs the Croix-Rousse fine"),
    # --- e-mail (.eml and an mbox)
    ("eml_offer", "2023-01-12 14:03", "Jonas Keller", "We would love you to join Kaltwerk as a backend engineer in Berlin, starting 3 April 2023"),
    ("eml_offer2", "2024-07-10 09:00", "Élodie Marchand", "Nous sommes ravis de vous accueillir chez Atelier Rhône comme développeuse à partir du 1er août 2024"),
    ("mbox", "2022-03-14 10:00", "Clínica Dentária da Boavista", "Lembrete: consulta de higiene oral a 21 de março de 2022 às 15h00"),
    ("mbox", "2023-10-02 10:00", "Zahnarztpraxis Neukölln", "Erinnerung: Ihr Zahnarzttermin am 9. Oktober 2023 um 8:30 Uhr"),
    ("mbox", "2024-09-23 10:00", "Cabinet dentaire Croix-Rousse", "Rappel : rendez-vous dentaire le 30 septembre 2024 à 17h30"),
    ("mbox", "2023-02-20 10:00", "Hausverwaltung Weserstraße", "Die Kaltmiete für die Wohnung in der Weserstraße 12 beträgt 980 Euro im Monat"),
    ("mbox", "2024-05-31 17:00", "Jonas Keller", "Thank you for everything at Kaltwerk, today is your last day and we will miss you"),
    ("mbox", "2023-09-25 08:00", "Berlin Marathon Events", "Congratulations on finishing the Berlin half marathon in 1:52:10"),
    ("mbox", "2024-04-08 08:00", "Run in Lyon", "Confirmation: your bib 4417 for the Lyon half marathon on 6 October 2024"),
]

JOURNAL_ENTRIES: dict[str, str] = {
    "2022-01-09": "New year, same flat on Rua de Cedofeita. The heating still does not work and the landlord never answers.",
    "2022-10-30": "Nine days after the knee surgery. Reading on the sofa, Farrusco sleeps on my crutches.",
    "2023-03-15": "Moved to Berlin today. The flat in Neukölln is empty except for a mattress and my three boxes.",
    "2023-04-03": "First day at Kaltwerk. Jonas showed me the heat-pump dashboard I will be working on.",
    "2023-05-20": "Met a tall guy called Lukas at the Südbloc climbing gym; he fixed my belay knot without making me feel stupid.",
    "2023-09-24": "Ran the Berlin half marathon. Rafael phoned from Porto to shout at me to go faster.",
    "2024-02-01": "Lukas moved in today. His plants now occupy every window of the Weserstraße flat.",
    "2024-06-29": "Moving day again: Berlin to Lyon. The new flat is on the Croix-Rousse hill, fourth floor, no lift.",
    "2024-07-15": "Started French B1 at the Alliance Française on Tuesday evenings. My German course is officially over.",
    "2024-10-06": "Lyon half marathon done, 1:49. Third half marathon in three cities.",
    "2024-10-18": "Autumn on the hill. Work at Atelier Rhône is calm, Lukas climbs at Climb Up Gerland on Sundays.",
}

CV = """# Inês Duarte

Backend engineer. Born 12 May 1994 in Porto, Portugal.

## Experience

- Atelier Rhône, Lyon: developer, since August 2024.
- Kaltwerk, Berlin: backend engineer, April 2023 to May 2024 (heat-pump monitoring).
- Porto Digital Lab, Porto: software engineer, 2017 to 2023.

## Languages

Portuguese (native), English (fluent), German (B2), French (B1, learning).
"""

LEASE = """Mietvertrag / rental agreement (summary kept for myself)

Flat: Weserstraße 12, 12047 Berlin-Neukölln, second floor left.
Start: 15 March 2023. Notice period: three months.
Deposit: three months of cold rent, paid by bank transfer.
Ended: 30 June 2024 (notice given on 25 March 2024, keys returned to the Hausverwaltung).
"""

LYON_LEASE = """Bail d'habitation (résumé)

Appartement : 7 rue d'Austerlitz, 69004 Lyon, quatrième étage sans ascenseur.
Début du bail : 1er juillet 2024. Loyer : 1 050 euros charges comprises.
Locataires : Inês Duarte et Lukas Brandt.
"""

# chatter: what people write between the facts, per source language
CHATTER = {
    "pt": ["ok", "Boa!", "hahaha", "Já jantaste?", "Estou no trabalho, falamos logo", "Chove imenso aqui",
           "Viste o jogo ontem?", "Que cansaço", "Amanhã ligo-te", "Beijinhos", "Manda fotos", "Estou a caminho",
           "Esqueci-me completamente", "Vamos almoçar no sábado?", "O trânsito hoje estava horrível",
           "Fiz bacalhau à Brás", "Estás bem?", "Tenho saudades tuas", "Que calor!", "Depois conto-te tudo",
           "A semana foi longa", "Comprei pão no sítio do costume", "Dormi mal outra vez", "Boa noite"],
    "en": ["ok", "haha", "See you later", "Did you eat?", "Long day at work", "It's raining again",
           "Call you tomorrow", "Sounds good", "Send pictures!", "On my way", "I totally forgot", "Lunch on Saturday?",
           "Traffic was awful today", "Made soup tonight", "Are you ok?", "Miss you", "So hot today",
           "Tell you everything later", "Long week", "Slept badly again", "Good night", "The train was late again"],
    "de": ["ok", "Haha", "Bis später", "Hast du schon gegessen?", "Langer Tag heute", "Es regnet schon wieder",
           "Ich ruf dich morgen an", "Klingt gut", "Schick Fotos!", "Bin unterwegs", "Total vergessen",
           "Mittagessen am Samstag?", "Die S-Bahn hatte wieder Verspätung", "Gute Nacht", "Alles gut bei dir?"],
}
SOURCES = {  # source: (people besides the owner, chatter languages, days between chats on average)
    "rafael": (["Rafael Sousa"], ["pt", "en"], 4),
    "mae": (["Mãe"], ["pt"], 3),
    "bia": (["Beatriz Duarte"], ["pt", "en"], 5),
    "group": (["Rafael Sousa", "Marta Lopes", "Hugo Pinto", "Sofia Reis"], ["pt"], 6),
    "clara": (["Clara Weber"], ["en", "en", "de"], 5),
    "lukas": (["Lukas Brandt"], ["en", "en", "de"], 3),
}


def _time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def _messages(source: str, rng: random.Random) -> list[tuple[datetime, str, str]]:
    """The source's facts among its chatter, in time order (a fact's minute is its own)."""
    people, languages, every = SOURCES[source]
    out = [(_time(t), who, text) for s, t, who, text in FACTS if s == source]
    if source == "lukas":
        first = min(t for t, _, _ in out) - timedelta(hours=1)
    else:
        first = START
    day = first
    while day < END:
        day += timedelta(days=rng.randint(1, 2 * every - 1))
        at = day.replace(hour=rng.randint(8, 22), minute=rng.randint(0, 59))
        for i in range(rng.randint(2, 5)):
            who = OWNER if i % 2 else rng.choice(people)
            out.append((at + timedelta(minutes=i * rng.randint(1, 9)), who,
                        rng.choice(CHATTER[rng.choice(languages)])))
    return sorted(out)


MAIL = {  # source or mbox sender: (address, subject, zone)
    "Jonas Keller": ("jonas@kaltwerk.example", "Your offer from Kaltwerk", BERLIN),
    "Élodie Marchand": ("elodie@atelier-rhone.example", "Bienvenue chez Atelier Rhône", PARIS),
    "Clínica Dentária da Boavista": ("agenda@clinica-boavista.example", "Lembrete de consulta", LISBON),
    "Zahnarztpraxis Neukölln": ("termine@zahnarzt-nk.example", "Terminerinnerung", BERLIN),
    "Cabinet dentaire Croix-Rousse": ("rdv@dentaire-cr.example", "Rappel de rendez-vous", PARIS),
    "Hausverwaltung Weserstraße": ("info@hv-weser.example", "Mietvertrag Weserstraße 12", BERLIN),
    "Berlin Marathon Events": ("results@berlin-half.example", "Your result", BERLIN),
    "Run in Lyon": ("inscriptions@runinlyon.example", "Inscription confirmée", PARIS),
}
NEWSLETTERS = ["Your weekly digest: five recipes for rainy days", "Flash sale on running shoes this weekend",
               "Your bank statement is ready", "Conference tickets: early bird ends Friday",
               "Your parcel is on its way", "Reminder: renew your gym membership"]


def write(archive: Path = ARCHIVE) -> None:
    rng = random.Random(20241020)
    archive.mkdir(parents=True, exist_ok=True)
    notice = (datetime(2022, 1, 3, 9, 0), exports.WHATSAPP_NOTICE_EN + " Tap to learn more.")
    exports.whatsapp_android(archive / "WhatsApp Chat with Rafael Sousa.txt", _messages("rafael", rng),
                             stamp=exports.android_stamp_en, notice=notice)
    exports.whatsapp_android(archive / "WhatsApp Chat with Trilhos & Tascas.txt", _messages("group", rng),
                             stamp=exports.android_stamp_en, notice=notice, events=[
                                 (datetime(2022, 1, 3, 9, 1), 'Rafael Sousa created group "Trilhos do Norte"'),
                                 (datetime(2023, 9, 10, 9, 0), 'Rafael Sousa changed the group name from '
                                  '"Trilhos do Norte" to "Trilhos & Tascas"')])  # the rename the facts speak of
    for source, partner in (("mae", "Mãe"), ("bia", "Beatriz Duarte")):
        exports.whatsapp_ios(archive / f"WhatsApp Chat - {partner}.txt", _messages(source, rng), partner=partner,
                             day="%d/%m/%Y", notice=(datetime(2022, 1, 3, 9, 0), exports.WHATSAPP_NOTICE_EN))
    for source, partner, chat_id in (("clara", "Clara Weber", 2000002), ("lukas", "Lukas Brandt", 2000003)):
        exports.telegram(archive / f"telegram-{source}" / "result.json", _messages(source, rng), owner=OWNER,
                         owner_id="user1000001", partner=partner, chat_id=chat_id, zone=BERLIN)
    for source, name in (("eml_offer", "kaltwerk-offer.eml"), ("eml_offer2", "atelier-rhone.eml")):
        (_, stamp, who, text), = [f for f in FACTS if f[0] == source]
        address, subject, zone = MAIL[who]
        exports.eml(archive / name, exports.Mail(_time(stamp).replace(tzinfo=zone), who, address, TO, subject,
                                                 f"Dear Inês,\n\n{text}.\n\nBest,\n{who}"))
    mails = [(_time(stamp), who, text) for source, stamp, who, text in FACTS if source == "mbox"]
    mails += exports.newsletters(rng, START, END, NEWSLETTERS, gap=(5, 20), hour=7)
    exports.mbox(archive / "mail.mbox", exports.addressed(mails, MAIL, to=TO, zone=LISBON, newsletter_stop=False))
    exports.journals(archive, JOURNAL_ENTRIES, title="Journal")
    (archive / "CV Inês Duarte.md").write_text(CV, encoding="utf-8")
    (archive / "lease Berlin Weserstrasse.txt").write_text(LEASE, encoding="utf-8")
    exports.docx(archive / "bail Lyon.docx", LYON_LEASE, created=datetime(2024, 6, 25))


if __name__ == "__main__":
    write()
