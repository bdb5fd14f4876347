"""A second invented life for bench/life_eval.py (`--archive second`), written after the ranking
rules were tuned and without reading them: Zofia "Zosia" Wiśniewska, a UX designer from Kraków who
moves to Dublin, 2022-2024, in Polish, English and some Spanish. Her phone saves her mother as
"Mama" and her brother as "Brat"; her partner Javi writes on Telegram, her Dublin colleague on
Signal. Fourteen files in the export formats the importers read; the facts the questions ask about
are stated once, in passing, among small talk drawn from a seeded generator (the same files every
run). This archive is for reporting only: nothing is tuned on it.

    python bench/life_eval/second/write_archive.py   # writes bench/life_eval/second/archive/
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # exports.py, the formats the lives are written in
import exports  # noqa: E402

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "archive"
OWNER = "Zofia Wiśniewska"
TO = f"{OWNER} <zosia.wisniewska@example.org>"
OWNER_ALIASES = "Zofia Wiśniewska,Zofia Wisniewska,Zosia"
START = datetime(2022, 1, 3, 9, 0)
END = datetime(2024, 6, 30, 22, 0)
KRAKOW, DUBLIN = ZoneInfo("Europe/Warsaw"), ZoneInfo("Europe/Dublin")
Z = OWNER

# (source, local time, sender, text): the facts, each said once
FACTS: list[tuple[str, str, str, str]] = [
    # --- Mama (WhatsApp iOS, Polish)
    ("mama", "2022-02-12 19:40", Z, "Mamo nie panikuj, ale złamałam nadgarstek na nartach w Zakopanem. Gips na sześć tygodni"),
    ("mama", "2022-02-12 19:42", "Mama", "Jezus Maria!! Dzwonie do ciebie"),
    ("mama", "2022-08-21 18:05", Z, "Mamo, mamy kota! Nazywa się Pierogi, jest rudy i ma jedno krzywe ucho 😹"),
    ("mama", "2022-10-05 20:10", "Mama", "Córcia, jedź do tego Dublina. Takie szanse się nie powtarzają, a my tu sobie poradzimy"),
    ("mama", "2023-04-02 12:30", "Mama", "Tata pyta czy Javi je pierogi z kapustą bo na Wielkanoc robię trzy rodzaje"),
    ("mama", "2023-09-03 10:15", "Mama", "Wyślij zdjęcia nowego mieszkania! Stoneybatter, dobrze piszę?"),
    ("mama", "2023-11-12 22:40", "Mama", "Babcia płakała ze szczęścia, dziewięćdziesiątka jak się patrzy. Dziękuję że przyleciałaś"),
    ("mama", "2024-03-02 07:05", "Mama", "Michał dzwonił, już jest na świecie! Wszyscy zdrowi, jadę do szpitala"),
    ("mama", "2024-03-17 09:12", Z, "Mamo, Javi mi się oświadczył! Wczoraj w Walencji, nad Albuferą, o zachodzie słońca 💍"),
    ("mama", "2024-05-26 19:00", "Mama", "Tata sprzedał wreszcie tego starego passata, teraz jeździ toyotą jak emeryt 😂"),
    # --- Brat (WhatsApp Android, Polish)
    ("brat", "2022-06-18 23:10", "Brat", "Kasia powiedziała tak!! Ślub planujemy na przyszły czerwiec"),
    ("brat", "2022-11-20 17:45", "Brat", "Mogę cię zawieźć na lotnisko 28-ego, mam wolne. Balice o 6 rano?"),
    ("brat", "2023-06-17 11:00", "Brat", "Ślub o 15:00 w kościele św. Józefa w Podgórzu, wesele w Dworze Sieraków. Nie spóźnij się siostra"),
    ("brat", "2024-01-10 21:20", "Brat", "polecam serial Rojst, obejrzyj z Javim z napisami, sezon 1 najlepszy"),
    ("brat", "2024-03-02 06:15", "Brat", "Antoś urodził się o 5:40, 3400 g, 54 cm. Kasia dzielna jak zawsze"),
    ("brat", "2024-03-02 06:20", Z, "AAAA gratulacje!!! Ciocia Zosia już go kocha"),
    ("brat", "2024-06-09 15:30", "Brat", "Antoś ma pierwszy ząb, nie śpimy od tygodnia"),
    # --- Javi (Telegram, English and Spanish)
    ("javi", "2022-04-10 11:02", "Javi Ortega", "Hey Zosia! It was great to meet you at the language exchange yesterday. Same time next Thursday?"),
    ("javi", "2022-07-02 20:30", "Javi Ortega", "Mi madre dice que cuando vengas a Valencia tenemos que ir a Casa Carmela, la mejor paella de la ciudad"),
    ("javi", "2022-09-15 19:00", "Javi Ortega", "Spanish lesson of the day: 'vale' means ok and 'guay' means cool. Practica conmigo"),
    ("javi", "2022-10-04 22:10", Z, "I got the offer from Lumen Health. Dublin. I don't know what to do"),
    ("javi", "2022-10-04 22:14", "Javi Ortega", "Take it. I can ask Aptiv for a transfer or look at Intel in Leixlip, they are hiring"),
    ("javi", "2023-05-15 18:40", "Javi Ortega", "Intel said yes!! I start at Intel Leixlip on 1 August"),
    ("javi", "2023-08-28 13:05", "Javi Ortega", "Signed the lease for Manor Street, we get the keys on Friday"),
    ("javi", "2023-12-10 21:00", "Javi Ortega", "Flights to Valencia booked: 22 Dec out, 2 Jan back. Mamá ya está planeando el menú"),
    ("javi", "2024-02-18 16:30", "Javi Ortega", "Fiona is officially ours! The DSPCA lady says she's a beagle mix, about two years old"),
    ("javi", "2024-05-08 12:45", "Javi Ortega", "Booked the venue: Masía Les Palmeres, 21 June 2025. No going back now 😄"),
    ("javi", "2024-06-01 19:20", "Javi Ortega", "I handed in my notice at Intel. Starting at Stripe in September, the office on the docks"),
    # --- Ola (WhatsApp iOS, Polish)
    ("ola", "2022-03-05 21:15", "Ola Nowak", "Musisz przeczytać Księgi Jakubowe, długie ale warto, serio"),
    ("ola", "2022-12-27 23:30", "Ola Nowak", "Będę tęsknić wariatko. Dublin nie wie jakie ma szczęście"),
    ("ola", "2023-05-20 10:00", "Ola Nowak", "Lizbona potwierdzona! Lot 14 czerwca, wracamy 18-ego"),
    ("ola", "2023-06-16 22:05", "Ola Nowak", "Najlepsze pastéis de nata były w Manteigaria, nie w Belém, zapamiętaj na następny raz"),
    ("ola", "2023-10-01 08:40", Z, "ok słuchaj bo nie mam czasu pisać jade autobusem, w pracy dostałam nowy projekt, aplikacja dla diabetyków, i Siobhán mówi że jak dobrze pójdzie to w styczniu awans, trzymaj kciuki"),
    ("ola", "2024-04-02 20:50", "Ola Nowak", "Jestem w ciąży!!! Tylko nie mów jeszcze dziewczynom"),
    # --- the friends' group (WhatsApp Android, Polish)
    ("group", "2022-05-14 20:00", "Marta Kowalczyk", "Wrzuciłam zdjęcia z Ojcowa na Drive, link w opisie grupy"),
    ("group", "2022-09-30 12:10", "Marta Kowalczyk", "Spotkanie w Alchemii w piątek o 19?"),
    ("group", "2023-01-21 21:30", "Ewcia", "To może zmienimy nazwę grupy na Babski wieczór 🍷, bo z liceum to już dawno 😂"),
    ("group", "2023-07-08 22:45", "Marta Kowalczyk", "Rozstałam się z Bartkiem. Nie chcę o tym gadać, po prostu wiedzcie"),
    ("group", "2024-02-10 19:10", "Ewcia", "Przeprowadzam się do Wrocławia w marcu, dostałam pracę w Nokii"),
    ("group", "2024-04-30 20:00", "Ola Nowak", "Dziewczyny, mam wam coś do powiedzenia... będę mamą! Termin na listopad 🤰"),
    # --- Kuba, an old colleague (Telegram, Polish)
    ("kuba", "2022-01-10 09:30", "Kuba Zieliński", "Deadline dla Biedronki przesunięty na piątek, klient znowu zmienia kolory"),
    ("kuba", "2022-10-20 16:00", "Kuba Zieliński", "Serio odchodzisz z Fabryki Pikseli? Kto mi teraz będzie tłumaczył Figmę 😭"),
    ("kuba", "2023-03-01 10:20", "Kuba Zieliński", "Jak będziesz w Krakowie wpadnij na kawę do Karmy na Krupniczej"),
    ("kuba", "2023-09-12 18:00", "Kuba Zieliński", "Założyłem własne studio, nazywa się Kreska. Pierwszy klient już jest"),
    ("kuba", "2024-01-15 12:00", "Kuba Zieliński", "Gratulacje awansu! Senior brzmi poważnie"),
    # --- Siobhán, a Dublin colleague (Signal, English)
    ("siobhan", "2023-01-09 09:15", "Siobhán Ní Bhriain", "Welcome to Lumen! I'm your buddy for the first month, your desk is by the window on the third floor"),
    ("siobhan", "2023-02-20 13:10", "Siobhán Ní Bhriain", "You have to listen to the Blindboy Podcast, it's the most Irish thing you'll ever hear"),
    ("siobhan", "2023-06-09 17:30", "Siobhán Ní Bhriain", "Ciarán is leaving for Berlin, his last day is the 30th. Card going round"),
    ("siobhan", "2024-01-08 10:00", "Siobhán Ní Bhriain", "It's official, you're Senior UX Researcher from today! Drinks at The Cobblestone on Friday?"),
    ("siobhan", "2024-05-14 08:05", Z, "Can't make the offsite, Fiona has the vet at 10"),
]

JOURNAL = {
    "2022-04-09": "Language exchange at Café Szafe. Met a Spanish guy, Javi, an engineer at Aptiv, terrible at Polish and very funny. We talked until they closed.",
    "2022-08-20": "Adopted a ginger kitten from the Kocia Łapka shelter. Called him Pierogi.",
    "2022-12-28": "Landed in Dublin. The flat on Cabra Road in Phibsborough is tiny and smells of damp, but it's mine.",
    "2023-01-09": "First day at Lumen Health. Everyone says grand about everything.",
    "2023-02-06": "Started Spanish A2 at the Instituto Cervantes on Lincoln Place, Monday evenings.",
    "2023-06-18": "Michał i Kasia są małżeństwem. Tańczyłam do czwartej rano.",
    "2023-09-01": "Moved in with Javi: 14 Manor Street, Stoneybatter. Pierogi hid under the bed all night.",
    "2023-11-11": "Flew to Kraków for Babcia Hela's 90th.",
    "2024-03-16": "Javi proposed at the Albufera at sunset. I said yes before he finished the sentence.",
    "2024-06-02": "Ran the Women's Mini Marathon with Siobhán. My knee hurts but I finished.",
}

CV = """# Zofia Wiśniewska

UX researcher. Born 14 May 1994 in Nowy Sącz, Poland.

## Experience
- Lumen Health, Dublin: UX Designer (January 2023), Senior UX Researcher (from January 2024)
- Fabryka Pikseli, Kraków: UX Designer (2018-2022)

## Education
- MA Cognitive Science, Jagiellonian University, 2018

## Languages
Polish (native), English (C2), Spanish (A2)
"""

TENANCY = """Residential Tenancy Agreement
Landlord: Gráinne O'Sullivan
Tenants: Zofia Wiśniewska and Javier Ortega Muñoz
Property: 14 Manor Street, Stoneybatter, Dublin 7
Term: twelve months from 1 September 2023
Rent: €2,100 per month, payable on the first day of each month
Pets: one cat is permitted; any other animal needs the landlord's written consent
"""

# sender: (address, subject, zone); "Newsletter" draws its subject from NEWSLETTERS
MAIL = {
    "Declan Murphy": ("declan.murphy@lettings.example", "Cabra Road tenancy", DUBLIN),
    "Instituto Cervantes Dublín": ("matricula@cervantes-dublin.example", "Matrícula confirmada", DUBLIN),
    "Ryanair": ("itinerary@ryanair.example", "Your travel itinerary", DUBLIN),
    "DSPCA Rehoming": ("rehoming@dspca.example", "Adoption approved", DUBLIN),
    "Stoneybatter Vets": ("reception@stoneybatter-vets.example", "Reminder: Fiona", DUBLIN),
    "Women's Mini Marathon": ("results@womensmini.example", "Your result", DUBLIN),
    "Fabryka Pikseli HR": ("kadry@fabrykapikseli.example", "Świadectwo pracy", KRAKOW),
}
MBOX = [
    ("2022-11-02 18:00", "Fabryka Pikseli HR", "W załączeniu świadectwo pracy. Ostatni dzień pracy: 16 grudnia 2022"),
    ("2022-12-01 10:30", "Declan Murphy", "Your tenancy at 3 Cabra Road, Phibsborough begins on 28 December; the rent is €1,450 per month"),
    ("2023-01-25 15:00", "Instituto Cervantes Dublín", "Su matrícula en el curso A2 está confirmada: lunes de 18:30 a 20:30"),
    ("2023-11-05 09:00", "Ryanair", "Booking reference QX7RTP: Dublin to Kraków, 10 November 2023, 06:25"),
    ("2023-12-11 09:00", "Ryanair", "Booking reference LM2KDW: Dublin to Valencia, 22 December 2023, 07:10"),
    ("2024-02-16 14:20", "DSPCA Rehoming", "Good news: your application to adopt Fiona (beagle cross, female) has been approved"),
    ("2024-05-07 08:00", "Stoneybatter Vets", "Fiona is due her booster vaccination. Your appointment: 14 May 2024 at 10:00"),
    ("2024-06-03 12:00", "Women's Mini Marathon", "Congratulations Zofia! Your chip time for 10 km: 1:02:47"),
]
NEWSLETTERS = ["Your Revolut statement for last month", "Lidl Plus: this week's offers", "Figma: what's new",
               "Your Spotify Wrapped is here", "Allegro: paczka jest w drodze", "Bookstation: nowości tygodnia"]

EML = [
    ("lumen-offer.eml", "Aoife Byrne", "careers@lumenhealth.example", "Your offer from Lumen Health",
     "2022-10-03 16:40", DUBLIN,
     "Dear Zofia,\n\nWe are delighted to offer you the position of UX Designer at Lumen Health in Dublin, "
     "starting on 9 January 2023, at a salary of €62,000 a year. We will help with the relocation.\n\n"
     "Kind regards,\nAoife Byrne\nTalent team"),
    ("umowa-adopcyjna.eml", "Schronisko Kocia Łapka", "adopcje@kocialapka.example", "Umowa adopcyjna",
     "2022-08-19 11:00", KRAKOW,
     "Dzień dobry,\n\nw załączeniu umowa adopcyjna: kocur Pierogi (w schronisku Rudzielec), urodzony około "
     "maja 2022, zaszczepiony i zaczipowany. Prosimy o zdjęcie za miesiąc!\n\nZespół Kocia Łapka"),
]

# (start, end or None for all day, summary, location, rule)
EVENTS = [
    ("2022-03-21 16:00", "2022-03-21 16:45", "Dentysta - dr Nowicka", "ul. Długa 12, Kraków", ""),
    ("2023-02-06 18:30", "2023-02-06 20:30", "Spanish A2", "Instituto Cervantes, Lincoln Place", "FREQ=WEEKLY;BYDAY=MO;COUNT=20"),
    ("2023-06-17", None, "Ślub Michała i Kasi", "Kościół św. Józefa, Podgórze", ""),
    ("2023-11-12 14:00", "2023-11-12 20:00", "Babcia Hela 90 urodziny", "Restauracja Pod Wawelem", ""),
    ("2024-01-22 11:00", "2024-01-22 11:30", "Dentist - Dr Kavanagh", "Smithfield Dental, Dublin 7", ""),
    ("2024-05-14 10:00", "2024-05-14 10:30", "Vet: Fiona booster", "Stoneybatter Vets", ""),
    ("2024-06-02 14:00", "2024-06-02 16:00", "Women's Mini Marathon", "Fitzwilliam Square", ""),
]

CHATTER = {
    "pl": ["ok", "hej", "co tam?", "nic nowego", "spoko", "dobra", "haha", "hahaha", "😂", "❤️", "jestem w pracy",
           "zadzwonie wieczorem", "jak się czujesz?", "dobrze, a ty?", "zmęczona jestem", "pada u was?",
           "u nas leje od rana", "widziałaś to?", "ok, to pogadamy jutro", "dobranoc", "kocham cię",
           "nie mogę teraz, oddzwonię", "jadłaś coś?", "tak, tak", "no właśnie", "aha", "serio?", "nie wierze",
           "musze lecieć", "daj znać jak dojedziesz", "dojechałam", "a co u babci?", "wszystko ok",
           "wyślij zdjęcie", "pięknie!", "hmm", "zobaczymy", "jutro?", "może w weekend", "sory, zasnęłam"],
    "en": ["ok", "haha", "lol", "sounds good", "see you later", "on my way", "running late sorry", "👍",
           "did you eat?", "yes", "no", "what time?", "around 7?", "perfect", "so tired today", "same",
           "it's raining again", "typical Dublin", "call you later", "love you", "night night", "wait what",
           "omg", "ugh mondays", "coffee?", "can't, meeting", "sent you the link", "thx", "grand",
           "how was your day?", "long", "tell me later", "miss you", "x"],
    "es": ["vale", "jajaja", "qué tal?", "bien, y tú?", "guay", "te quiero", "buenas noches", "ya voy",
           "qué calor", "mañana?", "venga", "madre mía", "me muero de sueño", "besos"],
}

# source: (people other than the owner, languages, mean days between exchanges)
SOURCES = {
    "mama": (["Mama"], ["pl"], 3),
    "brat": (["Brat"], ["pl"], 7),
    "javi": (["Javi Ortega"], ["en", "en", "es"], 2),
    "ola": (["Ola Nowak"], ["pl"], 4),
    "group": (["Ola Nowak", "Marta Kowalczyk", "Ewcia"], ["pl"], 5),
    "kuba": (["Kuba Zieliński"], ["pl", "en"], 12),
    "siobhan": (["Siobhán Ní Bhriain"], ["en"], 6),
}


def _time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def _messages(source: str, rng: random.Random) -> list[tuple[datetime, str, str]]:
    """The source's facts among its small talk, in time order; a chat begins where its facts do."""
    people, languages, every = SOURCES[source]
    facts = [(_time(t), who, text) for s, t, who, text in FACTS if s == source]
    out = list(facts)
    day = min(START, facts[0][0] - timedelta(days=1)) if source not in {"javi", "siobhan"} else facts[0][0]
    taken = {t for t, _, _ in facts}
    while day < END:
        day += timedelta(days=rng.randint(1, 2 * every - 1))
        at = day.replace(hour=rng.randint(7, 23), minute=rng.randint(0, 59))
        for i in range(rng.randint(2, 6)):
            who = OWNER if i % 2 else rng.choice(people)
            when = at + timedelta(minutes=i * rng.randint(1, 7))
            if when not in taken:
                out.append((when, who, rng.choice(CHATTER[rng.choice(languages)])))
    return sorted(out)


# WhatsApp's end-to-end notice on a phone in Polish (Android adds the LEARN_MORE)
NOTICE = ("Wiadomości i połączenia są szyfrowane metodą end-to-end. Nikt spoza tego czatu, nawet WhatsApp, nie może "
          "ich odczytać ani odsłuchać.")
LEARN_MORE = "Dotknij, aby dowiedzieć się więcej."


def _zone(location: str) -> str:
    """An event's time zone: Kraków's where it is there, else Dublin's."""
    return "Europe/Warsaw" if "Kraków" in location or "Wawel" in location else "Europe/Dublin"


def write(archive: Path = ARCHIVE) -> None:
    rng = random.Random(20260601)
    archive.mkdir(parents=True, exist_ok=True)
    for source, partner in (("mama", "Mama"), ("ola", "Ola Nowak")):
        exports.whatsapp_ios(archive / f"WhatsApp Chat - {partner}.txt", _messages(source, rng), partner=partner,
                             day="%d.%m.%Y", notice=(START - timedelta(days=1), NOTICE))
    android = {"stamp": exports.android_stamp_pl, "notice": (START - timedelta(days=1), NOTICE + " " + LEARN_MORE)}
    exports.whatsapp_android(archive / "WhatsApp Chat with Brat.txt", _messages("brat", rng), **android)
    exports.whatsapp_android(archive / "WhatsApp Chat with Babski wieczór 🍷.txt", _messages("group", rng), **android,
                             events=[(START - timedelta(hours=1), "Marta Kowalczyk utworzył(a) grupę "
                                      "„Dziewczyny z liceum”"),
                                     (_time("2023-01-21 21:40"), "Marta Kowalczyk zmienił(a) nazwę grupy z "
                                      "„Dziewczyny z liceum” na „Babski wieczór 🍷”")])
    for source, partner, chat_id in (("javi", "Javi Ortega", 3000002), ("kuba", "Kuba Zieliński", 3000003)):
        exports.telegram(archive / f"telegram-{source}" / "result.json", _messages(source, rng), owner=OWNER,
                         owner_id="user1000001", partner=partner, chat_id=chat_id, zone=KRAKOW)
    exports.signal(archive / "signal" / "Siobhán Ní Bhriain", _messages("siobhan", rng), owner=OWNER, padding="  ")
    for name, sender, address, subject, stamp, zone, text in EML:  # its Message-IDs end in the subject's length
        exports.eml(archive / name, exports.Mail(_time(stamp).replace(tzinfo=zone), sender, address, TO, subject,
                                                 text, tag=len(subject)))
    mails = [(_time(t), who, text) for t, who, text in MBOX]
    mails += exports.newsletters(rng, START, END, NEWSLETTERS, gap=(4, 15), hour=6, minute=30)
    exports.mbox(archive / "gmail.mbox", exports.addressed(mails, MAIL, to=TO, zone=DUBLIN, tag=len))
    exports.journals(archive, JOURNAL, title="Dziennik")
    (archive / "CV Zofia Wiśniewska.md").write_text(CV, encoding="utf-8")
    events = [exports.Event(*e, zone=_zone(e[3])) for e in EVENTS]
    (archive / "kalendarz.ics").write_text(
        exports.calendar(events, name="Zosia", zone="Europe/Dublin", stamp="20240630T120000Z",
                         uid=lambda n, _: f"ev{n}@zosia.example", calscale=False), encoding="utf-8", newline="")
    # the zip member times python-docx gave the committed file when it was written: its bytes again
    exports.docx(archive / "Tenancy Manor Street.docx", TENANCY, created=datetime(2023, 8, 28), modified=False,
                 zipped=datetime(2026, 12, 1, 17, 19, 38))


if __name__ == "__main__":
    write()
