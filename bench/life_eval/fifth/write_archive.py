"""The fifth invented life: Mélodie Bergeron, a sound engineer from Chicoutimi, in Montréal (post-production
dubbing at Studio Piccolo) from June 2021, then an audio designer at a game studio in Glasgow from April
2023, to March 2024. She writes French with her family and old friends, English with colleagues, her
Glasgow boyfriend and the sound-design community online, and her journal in either.

    python bench/life_eval/fifth/write_archive.py     # (re)writes bench/life_eval/fifth/archive

Deterministic: one fixed seed, no clock; the same bytes on any machine.
"""

from __future__ import annotations

import random
import shutil
import sys
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import exports  # noqa: E402

ARCHIVE = Path(__file__).resolve().parent / "archive"
OWNER_ALIASES = "Mélodie Bergeron,Melodie Bergeron"

ME = "Mélodie Bergeron"
MTL = ZoneInfo("America/Toronto")
GLA = ZoneInfo("Europe/London")
START = datetime(2021, 6, 1)
END = datetime(2024, 3, 15)
MOVE = datetime(2023, 4, 2)


def T(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def facts(rows: list[tuple[str, str, str]]) -> list[exports.Message]:
    return [(T(t), who, text) for t, who, text in rows]


def filler(rng: random.Random, start: datetime, end: datetime, n: int, pools: dict[str, list[str]],
           *, hours: tuple[int, int] = (8, 22), burst: tuple[int, int] = (2, 6),
           weights: dict[str, int] | None = None) -> list[exports.Message]:
    """Everyday chatter: bursts of a few lines between the people of `pools` (a name: their lines)."""
    names = list(pools)
    w = [(weights or {}).get(name, 1) for name in names]
    span = int((end - start).total_seconds() // 60)
    out: list[exports.Message] = []
    while len(out) < n:
        day = start + timedelta(minutes=rng.randrange(span))
        t = day.replace(hour=rng.randint(*hours), minute=rng.randrange(60), second=0)
        who = rng.choices(names, w)[0]
        for _ in range(rng.randint(*burst)):
            out.append((t, who, rng.choice(pools[who])))
            t += timedelta(minutes=rng.randint(0, 9))
            if rng.random() < 0.7:
                others = [x for x in names if x != who]
                who = rng.choices(others, [w[names.index(x)] for x in others])[0]
    return out[:n]


def merged(*parts: list[exports.Message]) -> list[exports.Message]:
    return sorted((m for part in parts for m in part), key=lambda m: m[0])


# --- everyday French and English, for the hay ------------------------------------------------------

MOM_FR = [
    "As-tu bien dormi ma belle?", "Ton père a encore passé la journée dans le garage", "Il fait frette à matin",
    "On a mangé du spaghetti ce soir", "Appelle-moi quand t'as deux minutes", "Bonne nuit ma chouette xx",
    "T'as-tu mangé au moins?", "J'ai vu ta tante Ginette à l'épicerie, elle te salue", "Il a plu toute la journée",
    "Ton père dit allo", "Je m'en vais au bingo avec Lise", "Fais attention à toi", "Bisous bisous",
    "As-tu reçu ma carte?", "Je t'ai envoyé un courriel, regarde tes messages", "On a regardé District 31 hier",
    "J'ai fait des muffins aux bleuets, j'aurais aimé t'en donner", "Le chat du voisin est encore dans nos fleurs",
    "C'est tranquille ici, rien de neuf", "Ton père a pelleté pendant deux heures", "T'es-tu bien rendue?",
    "Je pense à toi", "Prends ça mollo un peu, tu travailles trop", "Mets ta tuque!", "On t'aime gros",
    "J'ai essayé de t'appeler, ça sonnait occupé", "Ta cousine Mélissa est enceinte, garde ça pour toi",
    "Le dentiste m'a dit que tout était beau", "Je suis allée marcher sur la Zone portuaire", "Ouf quelle semaine",
    "As-tu vu la photo que Camille a mise?", "Il faut que je te montre mes nouvelles plantes", "Bonne fête des mères à moi haha",
    "J'ai acheté un nouveau grille-pain, l'autre a rendu l'âme", "La madame d'à côté a vendu sa maison",
    "Ton père a encore perdu ses lunettes", "Je t'envoie des becs", "Parle-moi de ta semaine",
]
MOM_ME = [
    "Oui oui ça va", "Grosse journée au travail", "Je t'appelle demain promis", "Bonne nuit maman xx",
    "Haha papa est pas possible", "Oui j'ai mangé, inquiète-toi pas", "Je suis brûlée", "Ok je regarde ça",
    "Merci maman ❤️", "Ça va bien, juste fatiguée", "J'ai fait du lavage toute la soirée", "Lol",
    "Dis allo à papa", "Je t'aime", "Je vais essayer de t'appeler dimanche", "Il pleut encore ici",
    "Oui je l'ai vue, trop cute", "J'ai fait une soupe, t'aurais été fière", "Ouf oui grosse semaine",
    "Je suis dans le métro, je te réponds tantôt", "Ok bonne soirée!", "Haha ok", "Pas grand-chose de neuf",
    "J'ai fini tard, on avait un mix à livrer", "Oui j'ai ma tuque 🙄", "C'est beau, pas de stress",
    "J'ai acheté des plantes moi aussi", "Tu me manques", "Je te raconte tout dimanche",
    "Est-ce que papa a réparé la souffleuse?", "Je me couche tôt ce soir", "Ok je note",
]
FAMILY_POOLS = {
    "Maman": ["Bonne fin de semaine tout le monde!", "Qui vient souper dimanche?", "Regardez la belle lune ce soir",
              "Bon matin la famille", "Ton père a fait des crêpes", "J'ai trouvé des vieilles photos de vous autres",
              "N'oubliez pas la fête de tante Ginette", "Bonne nuit mes amours", "Il neige encore ici", "On vous aime"],
    "Papa": ["Les Canadiens ont encore perdu", "Belle journée pour la pêche", "Qui a pris mon tournevis?",
             "Bon matin", "Haha", "Ok", "J'ai changé les pneus du char", "Y fait beau en masse",
             "Votre mère a raison comme d'habitude", "As-tu vu le match?"],
    "Camille": ["Allo tout le monde!", "Grosse journée au bureau", "Jé a fait un pâté chinois de compétition",
                "On passe dimanche si ça vous va", "Qui a la recette de biscuits de Mémé?", "Trop drôle 😂",
                "Bonne nuit!", "On est crevés", "Je vous envoie des photos ce soir", "Merci pour le souper!"],
    "Jérôme Roy": ["Salut la gang", "Go Habs go", "Haha ben oui", "On arrive vers 5h", "Bonne soirée",
                   "Qui veut du sirop d'érable? J'en ai 4 gallons", "Bien reçu", "Je m'occupe du BBQ"],
    "Oli": ["Salut la famille", "Lol", "Je suis de garde ce weekend", "Hahaha", "Envoyez des photos!",
            "On se fait un appel vidéo dimanche?", "Je m'ennuie de la tourtière", "Trop beau", "Bonne nuit la gang"],
    ME: ["Allo la famille!", "Haha trop cute", "Moi aussi je m'ennuie", "On s'appelle dimanche?", "Lol papa",
         "Je suis dans le jus cette semaine", "Bonne soirée tout le monde", "Bisous à tous", "Trop drôle",
         "Envoyez-moi la photo!", "J'ai hâte de vous voir"],
}
AUDREY_POOLS = {
    "Audrey Labrie": ["Tu rentres à quelle heure?", "J'ai fini mon quart, je suis morte", "On commande du thaï?",
                      "As-tu vu mes clés??", "Omg la journée que j'ai eue", "Il reste du café?",
                      "Je dors chez ma soeur ce soir", "Lol", "On se fait un vin ce weekend?", "T'es où?",
                      "Trop hâte à vendredi", "Je t'ai laissé des restes dans le frigo", "Night night",
                      "J'ai besoin d'un drink", "Haha oui", "Ça marche!", "Je suis de nuit toute la semaine",
                      "Raconte!!", "Ça me manque nos soirées de télé", "On se voit bientôt j'espère"],
    ME: ["Vers 7h je pense", "Oui thaï!", "Dans le bol près de la porte", "Ouf courage", "Non je l'ai fini, désolée",
         "Ok bonne soirée", "Haha", "Je suis au studio encore", "Avec plaisir!", "Je t'attends pour le film",
         "J'ai acheté du vin", "Omg raconte", "Merci t'es la meilleure", "Moi aussi ❤️", "Bonne nuit!", "Oui oui",
         "Je suis crevée", "Ça me manque aussi"],
}
SJ_POOLS = {
    "Sarah-Jeanne Lévesque": ["Allooo", "T'as-tu vu le dernier épisode?", "Je suis tellement tannée de ma job",
                              "Hahahaha", "On se fait un FaceTime?", "Pistache a encore mangé une chaussette",
                              "J'ai besoin de ton avis", "Trop bon", "T'es pas sérieuse", "Je t'aime mon amie",
                              "Omg oui", "Bonne nuit ma belle", "C'est quoi les nouvelles?", "Ça va toi?",
                              "Max te salue", "Je suis dans le trafic depuis une heure", "Raconte-moi tout",
                              "Ben voyons donc", "Full hâte", "J'ai fait du yoga, je suis fière de moi",
                              "Ok ok", "Je te texte plus tard", "J'ai ri toute seule dans le bus"],
    ME: ["Allo toi!", "Non pas encore, pas de spoil", "Ouf je te comprends", "Hahaha", "Oui ce soir?", "Lol pauvre Pistache",
         "Vas-y", "Tellement", "Ben oui!", "Moi aussi ❤️", "Trop drôle", "Bonne nuit!", "Pas grand-chose, toi?",
         "Ça va, fatiguée", "Dis allo à Max", "Omg courage", "Je t'appelle demain", "Haha je suis crampée",
         "J'ai besoin de vacances", "T'es la meilleure", "On se parle bientôt"],
}
OLI_POOLS = {
    "Me": ["Salut le frère", "Haha", "Ça va toi?", "Grosse semaine", "Lol", "T'as parlé à maman?", "Bonne nuit",
           "Trop drôle", "Je suis au studio", "Ok", "On se call dimanche?", "T'es fou", "J'ai vu ça"],
    "Olivier Bergeron": ["Yo", "Ça va bien", "Haha", "Je sors de la clinique", "Lol", "Oui hier", "Bonne nuit",
                         "Je suis brûlé", "Ok", "Dimanche ça marche", "As-tu vu le match?", "Naïma te salue",
                         "J'ai couru 10 km à matin", "Envoie une photo du chat", "Hahaha"],
}
FELIX_POOLS = {
    "Félix Chartrand": ["Je finis à 23h ce soir", "Tu me manques", "Service de fou ce soir", "T'as mangé?",
                        "Je t'apporte des restes du resto", "Bonne nuit mon amour", "On fait quoi dimanche?",
                        "Haha", "Le chef m'a encore crié dessus", "Je suis brûlé", "J'ai hâte de te voir",
                        "Love you", "T'es rentrée?", "Je passe après mon shift", "Ok", "On se voit demain?"],
    ME: ["Bonne soirée au resto!", "Oui j'ai mangé", "Moi aussi", "Courage", "Love you too", "Je dors déjà presque",
         "Dimanche marché Jean-Talon?", "Haha", "Ok", "Je suis au studio jusqu'à 9h", "Ouf pauvre toi",
         "Oui viens", "J'ai hâte aussi", "Bonne nuit"],
}
CALLUM_POOLS = {
    "Callum Reid": ["Morning! How'd you sleep?", "Class was chaos today", "Fancy a walk in the park later?",
                    "Haha brilliant", "I'm knackered", "Miss you", "What are you up to?", "That's class",
                    "Dinner at mine?", "It's absolutely pouring", "Aye", "Just got home", "Night night x",
                    "Tell Bémol I said hi", "I'll bring wine", "Can't wait to see you", "Sorry, marking all evening",
                    "You around this weekend?", "That made me laugh", "Sounds good to me"],
    ME: ["Morning! Not bad, you?", "Oh no, what happened?", "Yes please", "Haha", "Same, long day", "Miss you too",
         "Just finished work", "Sounds perfect", "Bémol says hi back", "See you at 7?", "Night x",
         "Oui oui", "Bring the nice wine", "Still at the studio", "Love that", "Yes!", "I'm so tired lol"],
}
DISCORD_POOLS = {
    "Margo Chen": ["anyone else fighting with room tone today", "lol", "that reverb tail is gorgeous",
                   "mixing a doc all week, send help", "loudness specs are the bane of my existence",
                   "coffee number four", "nice!", "has anyone tried the new Wwise version", "same", "big mood"],
    "Dev Patel": ["recorded some rain on my balcony last night", "that's a great library", "haha yes",
                  "my noise floor is cursed", "anyone going to GDC?", "clients want it louder, always louder",
                  "good shout", "the hum is coming from the fridge, found it", "nice work", "ty!"],
    "Jules Moreau": ["bonjour from Lyon", "lol", "ADR session ran 3 hours over", "this plugin crashed twice already",
                     "merci!", "that's so clean", "foley pit day, my knees hate me", "agreed", "true", "ha"],
    ME: ["same here", "lol yes", "that's gorgeous", "dubbing all day, my ears are toast", "thanks!", "nice",
         "omg same", "I recorded celery snaps for bones last week", "does anyone have a good cloth foley trick",
         "agreed", "haha", "wild", "love it"],
}
SLACK_POOLS = {
    "Fiona MacLeod": ["Morning all", "Can we sync at 2?", "Great work on those ambiences", "Playtest at 4 today",
                      "Reminder: timesheets by Friday", "Nice one", "Who's in the office tomorrow?",
                      "Let's keep the mix under -16 LUFS for the trailer", "Thanks!", "Lunch?"],
    "Ravi Chaudhry": ["Pushed a new build", "Looking into it", "Build is green", "Anyone seen the crash on level 3?",
                      "Coffee?", "lol", "Fixed, I think", "Merged to main", "Stand-up in 5", "on it"],
    "Niamh Boyle": ["Updated the schedule", "Sprint review Thursday", "Can everyone update Jira please",
                    "Great stuff", "Milestone notes are in the drive", "Thanks all", "Happy Friday!",
                    "Who's up for the pub after?", "Reminder: all-hands at 11"],
    "Hamish Grant": ["New cue is up on the drive", "Strings or synths for the cave theme?", "Haha",
                     "Anyone want a tea?", "I've been humming this motif all day", "Cheers", "Sounds good",
                     "Recording session moved to Wednesday"],
    ME: ["Morning!", "Sure, 2 works", "Thanks!", "Pushed the new ambiences", "On it", "Haha", "Coffee yes please",
         "I'll check the mix", "Can someone send me the build link?", "Lunch sounds good", "Nice!",
         "I'm in the booth this afternoon", "Updated my tickets"],
}
JOURNAL_FR = [
    "Journée tranquille.", "Je suis fatiguée mais contente.", "Il a plu toute la journée.",
    "Longue session de doublage, mes oreilles sont finies.", "J'ai cuisiné un gros chili pour la semaine.",
    "Marché une heure pour me vider la tête.", "J'ai appelé maman, rien de spécial.", "Soirée lecture et thé.",
    "Je me sens un peu seule ces temps-ci.", "Bonne journée au studio, le mix sonne bien.",
    "J'ai pratiqué la basse une heure.", "Nettoyé l'appart de fond en comble.", "Je dors mal depuis quelques jours.",
    "Fait du vélo jusqu'au canal.", "Je devrais écrire plus souvent ici.", "Journée productive, pour une fois.",
]
JOURNAL_EN = [
    "Quiet day.", "Long day in the booth.", "Rain again.", "Went for a long walk to clear my head.",
    "Cooked a big pot of soup for the week.", "Feeling a bit homesick tonight.", "Good day at work, the mix is coming together.",
    "Read in bed until midnight.", "Practised bass for an hour.", "Slept badly.", "Did laundry and nothing else.",
    "I should write here more often.", "Productive day for once.", "Tired but happy.",
]

# --- the facts, chat by chat ---------------------------------------------------------------------------

MOM_FACTS = facts([
    ("2021-06-06 19:12", "Maman", "Je t'envoie la recette de tourtière de Mémé. Le secret c'est une pincée de cannelle pis du clou de girofle dans la viande"),
    ("2021-06-06 19:20", ME, "Merci! Je vais la faire pour le souper de Félix"),
    ("2021-11-14 18:03", "Maman", "Pour le pouding chômeur : 2 tasses de cassonade, 2 tasses d'eau bouillante pis un peu de beurre. Pas plus compliqué"),
    ("2022-02-26 16:40", ME, "Maman! J'ai signé le bail pour le 3 et demi sur Chabot, je rentre le 1er avril"),
    ("2022-02-26 16:44", "Maman", "Bravo ma grande! Ton premier appart à toi toute seule"),
    ("2022-05-21 15:30", ME, "On est allées chercher mon chat à la SPCA avec Audrey! Un petit tigré orange de deux ans"),
    ("2022-05-21 15:33", "Maman", "Ah ben! Comment il s'appelle?"),
    ("2022-05-21 15:35", ME, "Bémol 🎵"),
    ("2023-01-22 20:15", "Maman", "Ton père a réfléchi. Si tu pars en Écosse, on va te garder ton Bémol tant que t'auras pas d'appart là-bas"),
    ("2023-03-12 17:02", ME, "J'ai vendu la Civic à un gars de Laval pour 9 500 $, un souci de moins"),
    ("2023-03-30 21:10", "Maman", "Bémol a passé la soirée caché sous le divan, mais il a mangé. Inquiète-toi pas"),
    ("2023-10-14 18:25", "Maman", "Mémé a déménagé aux Jardins du Saguenay aujourd'hui. Elle a une belle chambre au 2e avec vue sur la rivière"),
    ("2023-11-05 19:40", "Maman", "Pour ta soupe aux pois : fais tremper les pois jaunes toute la nuit, pis mets un jarret de porc"),
    ("2023-11-05 19:48", ME, "Parfait, ça va réchauffer Callum, il a jamais mangé de soupe aux pois"),
    ("2023-12-27 10:05", "Maman", "On l'aime ben ton Callum! Ton père dit qu'il parle mieux français que Jérôme haha"),
    ("2024-02-18 09:30", "Maman", "Bonne fête en retard ma chouette! 31 ans, ça passe vite"),
])
FAMILY_FACTS = facts([
    ("2021-06-25 20:00", "Camille", "Rappel : le souper pour les 38 ans de mariage de maman et papa c'est samedi chez nous"),
    ("2022-06-03 19:02", "Maman", "Les 90 ans de Mémé, c'est le samedi 16 juillet à la salle du Club de l'âge d'or. Tout le monde est là?"),
    ("2022-07-16 23:10", ME, "Quelle soirée! Mémé a dansé avec papa pour ses 90 ans, j'en reviens pas"),
    ("2022-09-14 07:45", "Jérôme Roy", "Elle est arrivée! Née à 4h12 ce matin, 3,4 kg, la maman et le bébé vont bien ❤️"),
    ("2022-09-14 08:30", "Camille", "On lui a donné Thérèse comme deuxième prénom, pour Mémé"),
    ("2022-09-14 08:35", ME, "Je pleure! Bienvenue petite Rosalie, ta matante Mélo a hâte de te prendre"),
    ("2022-10-02 14:00", "Camille", "Mélo, veux-tu être la marraine de Rosalie? Le baptême est le 30 octobre"),
    ("2023-01-29 12:10", "Papa", "Pour le chat, pas de trouble. Ta mère pis moi on va le garder à Chicoutimi le temps que tu te places"),
    ("2023-04-05 09:20", ME, "Mon nouveau numéro UK : +44 7700 900482. L'ancien en 514 va être coupé à la fin du mois"),
    ("2023-04-05 09:24", "Oli", "Noté! On va t'écrire sur le nouveau"),
    ("2023-07-08 17:40", ME, "Bémol est enfin chez nous à Glasgow! Merci papa d'avoir traversé l'Atlantique avec lui 🐱"),
    ("2023-07-08 17:45", "Papa", "Il a miaulé de Montréal à Londres, mais il est un bon voyageur"),
])
FAMILY_EVENTS = [
    (T("2019-05-12 10:00"), 'Camille created group "Famille Bergeron"'),
    (T("2022-09-15 09:02"), 'Camille changed the subject from "Famille Bergeron" to "Famille Bergeron + Rosalie"'),
    (T("2023-04-03 21:15"), 'Oli changed the subject from "Famille Bergeron + Rosalie" to "Bergeron d\'un océan à l\'autre"'),
]
AUDREY_FACTS = facts([
    ("2021-07-03 18:00", "Audrey Labrie", "Le proprio passe mardi pour le calorifère de ta chambre, je serai là"),
    ("2022-01-10 08:15", "Audrey Labrie", "Je suis là si t'as besoin. Félix a pas su ce qu'il perdait"),
    ("2022-03-31 22:40", ME, "Dernière nuit sur Saint-Hubert 😢 merci pour ces trois belles années de coloc"),
    ("2022-05-20 22:05", "Audrey Labrie", "Appelle-le Bémol! T'es ingénieure du son, c'est parfait"),
    ("2022-12-12 19:30", "Audrey Labrie", "C'est officiel, je quitte l'urgence du CHUM. J'ai signé un contrat d'infirmière à Kuujjuaq, je pars le 9 janvier"),
    ("2023-03-20 20:00", "Audrey Labrie", "Je suis à Montréal pour mon congé. C'est moi qui te conduis à Trudeau le 2, pas de discussion"),
    ("2023-03-29 23:00", ME, "Dernière nuit sur Chabot, l'appart est vide et ça résonne"),
    ("2023-09-10 16:20", "Audrey Labrie", "Kuujjuaq c'est magique, j'ai renouvelé mon contrat jusqu'en 2025"),
])
SJ_FACTS = facts([
    ("2021-08-14 21:00", "Sarah-Jeanne Lévesque", "Il faut absolument que tu lises Kukum de Michel Jean, j'ai pleuré à la fin"),
    ("2021-10-23 23:40", ME, "Men I Trust au MTELUS c'était magique, merci pour le billet"),
    ("2022-03-05 14:12", "Sarah-Jeanne Lévesque", "Pistache a 4 ans aujourd'hui! Le plus beau corgi du Québec"),
    ("2022-06-11 20:05", "Sarah-Jeanne Lévesque", "Mon prochain conseil lecture : Le plongeur de Stéphane Larue. Ça se passe dans une cuisine de resto, tu vas penser à Félix haha"),
    ("2022-12-24 23:55", "Sarah-Jeanne Lévesque", "MAXIME M'A DEMANDÉE EN MARIAGE!!! Sous le sapin!!"),
    ("2023-01-08 15:00", "Sarah-Jeanne Lévesque", "Veux-tu être ma demoiselle d'honneur? Le mariage sera le 19 août à Kamouraska, à l'Auberge La Marée"),
    ("2023-02-17 09:00", "Sarah-Jeanne Lévesque", "Bonne fête 30 ans! Ton cadeau arrive par la poste : le vinyle de L'Heptade d'Harmonium, édition originale"),
    ("2023-04-20 19:10", "Sarah-Jeanne Lévesque", "Pour le jeu vidéo, lis Tomorrow, and Tomorrow, and Tomorrow. C'est sur des amis qui font des jeux, parfait pour ta nouvelle vie"),
    ("2023-08-20 12:30", ME, "Le plus beau mariage. J'ai fait mon discours de demoiselle d'honneur sans pleurer (presque)"),
    ("2023-11-18 18:00", "Sarah-Jeanne Lévesque", "On a acheté un duplex à Limoilou! On déménage à Québec le 1er décembre, Pistache aussi"),
])
OLI_FACTS = facts([
    ("2021-06-15 20:00", "Olivier Bergeron", "La clinique à Sherbrooke veut me garder à temps plein, pas pire hein"),
    ("2022-06-20 21:30", "Olivier Bergeron", "J'ai eu le poste de physio à la clinique de Kitsilano!! On part pour Vancouver cet été"),
    ("2022-06-20 21:35", "Olivier Bergeron", "Naïma vient avec moi, elle a trouvé une job à UBC"),
    ("2022-08-15 23:50", "Olivier Bergeron", "Arrivés à Vancouver! Le camion avec nos boîtes arrive jeudi"),
    ("2023-02-11 19:00", "Olivier Bergeron", "Si t'as besoin d'un coup de main pour le dépôt à Glasgow, je peux te prêter 2000 $. Tu me remettras quand tu pourras"),
    ("2023-02-11 19:05", "Me", "T'es un amour. Je te rembourse d'ici Noël promis"),
    ("2023-02-17 08:10", "Olivier Bergeron", "Bonne fête la vieille! Naïma et moi on t'a envoyé une carte-cadeau Steam pour tes recherches de jeux vidéo"),
    ("2023-12-15 20:20", "Me", "Je t'ai fait le virement pour les 2000 $, on est quittes! Merci encore"),
])
FELIX_FACTS = facts([
    ("2021-06-12 16:00", "Félix Chartrand", "Le chef veut que je prenne le poste de sous-chef au Bistro Luce!"),
    ("2021-09-04 11:00", ME, "On va aux pommes à Rougemont demain?"),
    ("2021-11-20 09:00", "Félix Chartrand", "Bon un an mon amour 🥂 je t'ai réservé une table ce soir"),
    ("2022-01-09 23:30", "Félix Chartrand", "Je suis désolé pour ce soir. Je pense que c'est mieux comme ça"),
    ("2022-02-03 14:00", "Félix Chartrand", "J'ai laissé ta boîte de vinyles chez Audrey"),
])
CALLUM_FACTS = facts([
    ("2023-09-03 11:20", "Callum Reid", "Hiya, it's Callum from the ceilidh last night. You're a terrible dancer but I had a great time"),
    ("2023-09-03 11:40", ME, "Haha I'll take it. Hamish says you teach?"),
    ("2023-09-03 11:45", "Callum Reid", "Aye, I've got a P5 class at a primary school in Partick. Thirty nine-year-olds, send help"),
    ("2023-09-12 18:00", "Callum Reid", "Dinner Friday? You have to try Bramble & Byre on Gibson Street, their lamb is unreal"),
    ("2023-10-01 20:10", "Callum Reid", "My sister Isla wants to meet you, she's heard far too much already"),
    ("2023-10-22 21:00", ME, "Best weekend. The Old Man of Storr in the fog was unreal"),
    ("2023-12-09 22:40", "Callum Reid", "Mulled wine at the Edinburgh Christmas market with you > everything"),
    ("2024-02-18 20:15", ME, "Amsterdam with you was perfect. Can we go back for the tulips?"),
    ("2024-03-02 10:00", "Callum Reid", "Isla's having a wee party for her 30th on the 23rd, you're coming obviously"),
])
DISCORD_FACTS = facts([
    ("2021-07-08 20:10", ME, "Pro Tools subscription renewal is killing me, thinking of alternatives for my home setup"),
    ("2021-07-08 20:14", "Margo Chen", "honestly just switch to Reaper. 60 bucks and it does everything Pro Tools does for post"),
    ("2021-09-21 19:30", "Dev Patel", "if you want one shotgun for life, grab a used Sennheiser MKH 416. every set has one for a reason"),
    ("2021-10-02 15:00", ME, "Bought a used MKH 416 off Kijiji, it sounds incredible"),
    ("2022-02-15 21:00", "Jules Moreau", "for dialogue cleanup nothing beats iZotope RX, the De-reverb module saved my ADR"),
    ("2022-09-27 18:45", "Jules Moreau", "Mélo, Larkspur Games in Glasgow is hiring an audio designer. This job has your name on it"),
    ("2023-04-18 09:00", ME, "First week at Larkspur done, Glasgow is grey and lovely"),
])
SLACK_FACTS = facts([
    ("2023-04-17 09:05", "Niamh Boyle", "Everyone please welcome Mélodie, our new audio designer, joining us from Montréal today!"),
    ("2023-04-17 09:10", ME, "Thanks everyone! Very happy to be here"),
    ("2023-04-26 12:30", "Niamh Boyle", "For a GP, register with Hyndland Medical Practice, they're still taking new patients"),
    ("2023-05-30 16:20", "Ravi Chaudhry", "I'll fix the footstep double-trigger on gravel before Friday, promise"),
    ("2023-08-30 17:00", "Hamish Grant", "There's a ceilidh at Òran Mór on Saturday, you have to come, it's a Glasgow rite of passage"),
    ("2023-10-05 11:00", "Niamh Boyle", "Marketing signed off: Project Thistle is now officially called Hollow Tide"),
    ("2024-01-15 10:00", "Fiona MacLeod", "Delighted to announce that Mélodie is our new Senior Audio Designer. Well deserved!"),
    ("2024-02-09 15:30", "Fiona MacLeod", "My last day is the 23rd. Morag Sinclair takes over as audio director from the 26th"),
])
SLACK_DM = facts([
    ("2023-04-19 10:00", "Fiona MacLeod", "How's the Finnieston flat? Still fine until July?"),
    ("2023-04-19 10:05", ME, "It's small but fine, the landlord allows pets so Bémol could come early if needed"),
    ("2023-06-19 14:00", ME, "Can I take the 1st of July off? I get the keys to the Dowanhill Street flat that day"),
    ("2023-06-19 14:02", "Fiona MacLeod", "Of course, good luck with the move"),
    ("2024-02-22 17:30", "Fiona MacLeod", "It was a joy to work with you. Keep Hollow Tide sounding weird"),
])
JOURNAL_FACTS = {
    "2021-06-01": "Premier jour de mon nouveau contrat permanent chez Studio Piccolo, dans le Mile-End. Doublage de séries pour Netflix, je suis aux anges.",
    "2021-12-31": "New Year's Eve at Audrey's sister's. Félix worked the whole night at the restaurant. Something feels off between us.",
    "2022-01-09": "Félix et moi, c'est fini. On s'est laissés ce soir après le souper. Je suis vidée.",
    "2022-04-01": "First night in my own place on rue Chabot. No roommate, no noise, just me and too many boxes.",
    "2022-04-22": "Patrick Watson au Théâtre St-Denis ce soir. J'ai pleuré pendant Lighthouse.",
    "2022-10-18": "Interview with Larkspur Games this morning over Zoom. Fiona, the audio director, asked me to describe the sound of a cave. I think it went well?",
    "2022-11-03": "J'AI LA JOB. Larkspur m'offre le poste à Glasgow. Il faut juste le visa. Je n'arrive pas à y croire.",
    "2023-01-27": "Visa approved! Skilled Worker, five years. This is really happening.",
    "2023-02-17": "30 ans aujourd'hui. Maman m'a envoyé une courtepointe que Mémé avait commencée il y a des années. J'ai pleuré comme un bébé.",
    "2023-03-18": "Dernier show des Mauvaises Herbes avec moi à la basse, à la Casa del Popolo. On a fini avec notre vieille toune et tout le monde chantait.",
    "2023-03-24": "Last day at Studio Piccolo. Daniel gave a speech and the whole team signed a clapperboard for me.",
    "2023-04-02": "Vol pour Glasgow ce soir. Audrey m'a déposée à l'aéroport, on a pleuré toutes les deux au débarcadère.",
    "2023-04-03": "Landed in Glasgow. The furnished flat on Argyle Street in Finnieston is tiny but it will do until July.",
    "2023-09-02": "Went to the ceilidh at Òran Mór with Hamish. Danced the Gay Gordons with a tall teacher called Callum. Couldn't stop laughing.",
    "2023-10-21": "Isle of Skye with Callum for the weekend. Rain, sheep, fog, perfect.",
    "2023-11-10": "CHVRCHES at the Barrowland tonight. Sweaty, loud, the floor bounced. I love this city.",
    "2023-12-26": "Papa et maman ont rencontré Callum au souper de Boxing Day. Papa lui a montré comment ouvrir une bière avec un briquet.",
    "2024-01-15": "Promoted to Senior Audio Designer. I called maman from the stairwell.",
}

# --- mail -------------------------------------------------------------------------------------------

OWN_ADDRESS = "melodie.bergeron@gmail.com"
NEWS_MTL = [
    ("Hydro-Québec <info@hydroquebec.example>", "Votre facture est disponible", "Votre facture d'électricité est disponible dans votre Espace client."),
    ("STM <nouvelles@stm.example>", "Travaux sur la ligne orange ce week-end", "Des travaux auront lieu sur la ligne orange. Prévoyez des délais."),
    ("Bandcamp <noreply@bandcamp.example>", "New releases from artists you follow", "Three artists you follow have new releases this week."),
    ("Sweetwater <deals@sweetwater.example>", "Studio monitors on sale this week", "Save on studio monitors, headphones and interfaces."),
    ("La Presse+ <infolettre@lapresse.example>", "L'essentiel du matin", "Les nouvelles du jour en un coup d'oeil."),
    ("SAQ Inspire <inspire@saq.example>", "Vos offres personnalisées", "Découvrez vos offres de la semaine."),
    ("Ableton <news@ableton.example>", "Tips for your next session", "Five ways to speed up your workflow in Live."),
    ("Vidéotron <service@videotron.example>", "Votre relevé mensuel", "Votre relevé est prêt. Paiement préautorisé le 15."),
]
NEWS_GLA = [
    ("Octopus Energy <hello@octopus.example>", "Your monthly energy statement", "Your latest statement is ready to view."),
    ("ScotRail <news@scotrail.example>", "Spring offers across Scotland", "Explore Scotland by train this spring."),
    ("Bandcamp <noreply@bandcamp.example>", "New releases from artists you follow", "Three artists you follow have new releases this week."),
    ("Glasgow City Council <council@glasgow.example>", "Your council tax bill", "Your council tax bill for the year is now available."),
    ("Tesco Clubcard <clubcard@tesco.example>", "Your Clubcard vouchers are here", "Your vouchers are ready to spend."),
    ("The Guardian <newsletters@guardian.example>", "The Morning Briefing", "Start your day with the news that matters."),
    ("Audiokinetic <news@audiokinetic.example>", "Wwise 2023.1 is out", "What's new in Wwise 2023.1."),
    ("Monzo <hello@monzo.example>", "Your spending this month", "Here's a summary of your spending this month."),
]
REAL_MAIL = [
    ("2021-08-30 10:15", MTL, "Daniel Côté", "daniel@studiopiccolo.example", "Horaire de septembre",
     "Salut Mélodie, tu es sur la série d'animation tout le mois de septembre, salle B. On commence le 7 à 9h. Daniel"),
    ("2022-03-14 14:00", MTL, "Gestion Rosemont", "location@gestionrosemont.example", "Votre bail - rue Chabot",
     "Bonjour Mme Bergeron, vous trouverez ci-joint votre bail signé. Le loyer de 1 150 $ est payable le premier du mois. Bonne installation!"),
    ("2022-11-03 16:30", GLA, "Niamh Boyle", "niamh@larkspurgames.example", "Your offer from Larkspur Games",
     "Dear Mélodie, we are delighted to offer you the role of Audio Designer at Larkspur Games, with a starting salary of £42,000 per year. We'd love you to start on 17 April 2023, subject to your visa. Warm wishes, Niamh"),
    ("2023-01-27 11:02", GLA, "UK Visas and Immigration", "noreply@visas.example", "Decision on your Skilled Worker visa application",
     "Dear Melodie Bergeron, we are pleased to tell you that your Skilled Worker visa application has been approved. Your visa is valid from 1 April 2023."),
    ("2023-02-20 09:12", MTL, ME, OWN_ADDRESS, "Ma démission",
     "Bonjour Daniel, c'est avec un pincement au coeur que je te remets ma démission. Mon dernier jour sera le 24 mars. Merci pour tout. Mélodie"),
    ("2023-06-20 12:00", GLA, "West End Lettings", "lets@westendlettings.example", "Your tenancy at Dowanhill Street",
     "Dear Mélodie, your tenancy agreement is attached. Keys can be collected from our Byres Road office on 1 July from 10am."),
    ("2023-07-03 09:00", GLA, "Hyndland Medical Practice", "reception@hyndlandmp.example", "Registration confirmed",
     "Dear Ms Bergeron, you are now registered with Hyndland Medical Practice. Your named GP is Dr Anwar."),
    ("2023-12-05 18:00", GLA, "Réjean Bergeron", "rejean.bergeron@videotron.example", "Nos billets pour Noël",
     "Allo ma fille, on a nos billets! On atterrit à Glasgow le 22 décembre à 9h50. Ta mère apporte des tourtières congelées. Papa"),
]

CALENDAR = [
    exports.Event("2021-10-23 20:00", "2021-10-23 23:00", "Men I Trust", "MTELUS", zone="America/Toronto"),
    exports.Event("2021-06-02 19:00", "2021-06-02 22:00", "Pratique Mauvaises Herbes", "Local de pratique rue Ontario",
                  rule="FREQ=WEEKLY;BYDAY=WE;UNTIL=20230315T235959Z", zone="America/Toronto"),
    exports.Event("2022-04-22 20:00", "2022-04-22 22:30", "Patrick Watson", "Théâtre St-Denis", zone="America/Toronto"),
    exports.Event("2022-06-04 10:30", "2022-06-04 11:00", "Bémol vaccins annuels et vermifuge", "Clinique vétérinaire Rosemont", zone="America/Toronto"),
    exports.Event("2022-07-16", None, "90 ans de Mémé (Chicoutimi)", "Club de l'âge d'or"),
    exports.Event("2022-10-18 11:00", "2022-10-18 12:00", "Entrevue Larkspur Games (Zoom)", "", zone="America/Toronto"),
    exports.Event("2022-10-30 13:00", "2022-10-30 15:00", "Baptême de Rosalie", "Église Sainte-Anne", zone="America/Toronto"),
    exports.Event("2022-11-12 09:00", "2022-11-12 09:30", "Bémol détartrage dentaire sous anesthésie", "Clinique vétérinaire Rosemont", zone="America/Toronto"),
    exports.Event("2023-03-10 15:00", "2023-03-10 15:45", "Bémol certificat de santé pour le Royaume-Uni", "Clinique vétérinaire Rosemont", zone="America/Toronto"),
    exports.Event("2023-03-18 21:00", "2023-03-18 23:30", "Dernier show Mauvaises Herbes", "Casa del Popolo", zone="America/Toronto"),
    exports.Event("2023-04-02 21:35", "2023-04-03 09:10", "Vol AC 846 Montréal-Londres puis Glasgow", "Aéroport Montréal-Trudeau", zone="America/Toronto"),
    exports.Event("2023-04-17 09:00", "2023-04-17 17:00", "First day at Larkspur", "Larkspur Games", zone="Europe/London"),
    exports.Event("2023-07-01 10:00", "2023-07-01 11:00", "Collect keys Dowanhill Street", "West End Lettings Byres Road", zone="Europe/London"),
    exports.Event("2023-08-17 13:05", "2023-08-17 15:50", "Flight Glasgow to Montréal for SJ's wedding", "Glasgow Airport", zone="Europe/London"),
    exports.Event("2023-08-19", None, "Mariage de SJ et Max", "Auberge La Marée Kamouraska"),
    exports.Event("2023-09-02 19:30", "2023-09-02 23:59", "Ceilidh", "Òran Mór", zone="Europe/London"),
    exports.Event("2023-09-15 17:30", "2023-09-15 18:00", "Bémol annual check-up and booster", "Hyndland Vets", zone="Europe/London"),
    exports.Event("2023-10-21", None, "Skye with Callum", "Portree"),
    exports.Event("2023-11-10 19:00", "2023-11-10 23:00", "CHVRCHES", "Barrowland Ballroom", zone="Europe/London"),
    exports.Event("2023-12-22 09:50", "2023-12-22 10:30", "Pick up maman et papa", "Glasgow Airport", zone="Europe/London"),
    exports.Event("2024-02-16 07:10", "2024-02-16 09:40", "Amsterdam with Callum", "Glasgow Airport", zone="Europe/London"),
    exports.Event("2024-03-23 19:00", "2024-03-23 23:00", "Isla's 30th", "Callum's sister's flat", zone="Europe/London"),
    exports.Event("2023-05-08 18:30", "2023-05-08 19:30", "Gaelic for beginners", "Partick Library",
                  rule="FREQ=WEEKLY;BYDAY=MO;COUNT=10", zone="Europe/London"),
    exports.Event("2024-01-08 12:00", "2024-01-08 12:30", "Dentist", "Byres Road Dental", zone="Europe/London"),
]

INTERVIEW = [
    ("Fiona MacLeod", "Hi Mélodie, thanks for joining. I'm Fiona, audio director here at Larkspur, and this is Niamh, our producer."),
    ("Niamh Boyle", "Hello! Lovely to meet you."),
    ("Mélodie Bergeron", "Hi both, thank you for having me. Sorry in advance for my accent."),
    ("Fiona MacLeod", "Your accent is lovely. So tell us a bit about what you do at Studio Piccolo."),
    ("Mélodie Bergeron", "Mostly dubbing and post-production mixing for series, some foley, and I edit dialogue all day long."),
    ("Fiona MacLeod", "And have you worked with middleware, Wwise or FMOD?"),
    ("Mélodie Bergeron", "I've done the Wwise certification on my own time and built a small demo level with it."),
    ("Fiona MacLeod", "Brilliant. Here's my favourite question: describe the sound of a cave to me."),
    ("Mélodie Bergeron", "Wet, first. Drips with long tails, a low rumble you feel more than hear, and your own footsteps coming back late."),
    ("Niamh Boyle", "Love that. The project is a narrative adventure, code name Thistle, a lot of it underground."),
    ("Fiona MacLeod", "If you come, live in the West End. Partick or Hyndland, close to the studio and the park."),
    ("Mélodie Bergeron", "Good to know. Would the role support a visa?"),
    ("Niamh Boyle", "Yes, we're a licensed sponsor. We'd handle the Skilled Worker visa paperwork with you."),
    ("Fiona MacLeod", "Great. We'll be in touch within two weeks."),
]

CV = """Mélodie Bergeron
Ingénieure du son / Sound engineer
Montréal (Québec) - Tél. : 514 555-0137 - melodie.bergeron@gmail.com
Expérience
2021 - aujourd'hui : Ingénieure du son, Studio Piccolo, Montréal (doublage, mixage, montage dialogue)
2017 - 2021 : Assistante à la post-production audio, Studio Piccolo
2016 : Stage en prise de son, Radio-Canada Saguenay
Formation
2016 : DEC en techniques de son, Cégep de Jonquière (Art et technologie des médias)
Compétences
Pro Tools, Reaper, iZotope RX, Wwise (certifiée), prise de son sur plateau
Langues
Français (langue maternelle), anglais (courant)"""

MOVING_PLAN = """Plan déménagement Glasgow
Vendre la Civic (annonce sur Marketplace)
Résilier le bail sur Chabot - avis envoyé le 25 janvier
Certificat de santé de Bémol chez le vétérinaire - 10 mars
Papa garde Bémol à Chicoutimi jusqu'à ce que j'aie un appart
Ouvrir un compte Monzo dès l'arrivée
Carte SIM UK à l'aéroport
Appart meublé à Finnieston d'avril à juin, chercher dans le West End après
Donner la basse à Marco? Non, je l'apporte
Boîte de vinyles chez Oli? Non : chez maman"""

LEASE = [
    "WEST END LETTINGS - PRIVATE RESIDENTIAL TENANCY (SUMMARY)",
    "Tenant: Melodie Bergeron",
    "Property: Flat 2/1, 14 Dowanhill Street, Glasgow G11",
    "Start date: 1 July 2023",
    "Rent: GBP 1,050 per calendar month, payable on the 1st",
    "Deposit: GBP 1,050, protected with SafeDeposits Scotland",
    "Pets: one cat permitted (Bemol)",
    "Signed electronically on 20 June 2023",
]
PAYSLIP = [
    "LARKSPUR GAMES LTD - PAYSLIP",
    "Employee: Melodie Bergeron",
    "Job title: Senior Audio Designer",
    "Pay period: February 2024",
    "Annual salary: GBP 48,500",
    "Gross pay this period: GBP 4,041.67",
    "Tax code: 1257L",
]


def _journal(rng: random.Random) -> dict[str, str]:
    entries = dict(JOURNAL_FACTS)
    day = START
    while day < END:
        day += timedelta(days=rng.randint(6, 16))
        if day >= END:
            break
        key = f"{day:%Y-%m-%d}"
        if key in entries:
            continue
        pool = JOURNAL_FR if rng.random() < 0.55 else JOURNAL_EN
        entries[key] = " ".join(rng.sample(pool, rng.randint(2, 4)))
    return entries


def _newsletters(rng: random.Random) -> list[exports.Mail]:
    out = []
    for start, end, pool, zone in ((START, MOVE, NEWS_MTL, MTL), (MOVE, END, NEWS_GLA, GLA)):
        for when, _, subject in exports.newsletters(rng, start, end, [p[1] for p in pool], gap=(3, 9), hour=7, minute=30):
            sender, _, body = next(p for p in pool if p[1] == subject)
            name, address = sender.split(" <")
            out.append(exports.Mail(when.replace(tzinfo=zone), name, address.rstrip(">"), OWN_ADDRESS, subject, body,
                                    labels="Inbox,Category Promotions"))
    return out


def write(archive: Path = ARCHIVE) -> None:
    rng = random.Random(20210601)
    if archive.exists():
        shutil.rmtree(archive)
    archive.mkdir(parents=True)

    # WhatsApp, iPhone: Maman (whole period)
    mom = merged(MOM_FACTS, filler(rng, START, END, 640, {"Maman": MOM_FR, ME: MOM_ME}, hours=(7, 21)))
    folder = archive / "WhatsApp Chat - Maman"
    folder.mkdir()
    exports.whatsapp_ios(folder / "_chat.txt", mom, partner="Maman", day="%Y-%m-%d",
                         notice=(T("2021-05-30 08:00"), "Messages and calls are end-to-end encrypted. No one outside of "
                                 "this chat, not even WhatsApp, can read or listen to them."),
                         seconds=lambda t: (t.minute * 7 + t.hour * 13 + t.day) % 60)

    # WhatsApp, Android: the family group (renamed twice) and Audrey
    family = merged(FAMILY_FACTS, filler(rng, START, END, 560, FAMILY_POOLS, hours=(8, 22),
                                         weights={"Maman": 3, "Camille": 2, ME: 2}))
    exports.whatsapp_android(archive / "WhatsApp Chat with Bergeron d'un océan à l'autre.txt", family,
                             stamp=exports.android_stamp_en, notice=(T("2019-05-12 10:00"), exports.WHATSAPP_NOTICE_EN),
                             events=FAMILY_EVENTS)
    audrey = merged(AUDREY_FACTS, filler(rng, START, END, 320, AUDREY_POOLS, hours=(9, 23)))
    exports.whatsapp_android(archive / "WhatsApp Chat with Audrey Labrie.txt", audrey, stamp=exports.android_stamp_en,
                             notice=(T("2019-08-20 18:00"), exports.WHATSAPP_NOTICE_EN))

    # Telegram: Sarah-Jeanne
    sj = merged(SJ_FACTS, filler(rng, START, END, 520, SJ_POOLS, hours=(8, 23)))
    exports.telegram(archive / "Telegram" / "ChatExport_2024-03-15" / "result.json", sj, owner=ME,
                     owner_id="user4415550137", partner="Sarah-Jeanne Lévesque", chat_id=5550421987, zone=MTL)

    # Signal: Oli
    oli = merged(OLI_FACTS, filler(rng, START, END, 300, OLI_POOLS, hours=(8, 23)))
    exports.signal(archive / "signal" / "Olivier Bergeron", oli, owner="Me")

    # Messenger: Félix (until the break-up); Instagram: Callum (from the ceilidh)
    felix = merged(FELIX_FACTS, filler(rng, START, T("2022-01-08 12:00"), 260, FELIX_POOLS, hours=(10, 23)))
    thread = "inbox/felixchartrand_10158234567890123"
    exports.meta_thread(archive / "facebook" / "your_facebook_activity" / "messages" / thread / "message_1.json", felix,
                        title="Félix Chartrand", participants=["Félix Chartrand", ME],
                        thread_path=thread, group=False, zone=MTL)
    callum = merged(CALLUM_FACTS, filler(rng, T("2023-09-04 12:00"), END, 320, CALLUM_POOLS, hours=(7, 23)))
    thread = "inbox/callumreid_17845678901234567"
    exports.meta_thread(archive / "instagram" / "your_instagram_activity" / "messages" / thread / "message_1.json", callum,
                        title="Callum Reid", participants=["Callum Reid", ME],
                        thread_path=thread, group=False, zone=GLA)

    # Discord: the Foley Friends server
    discord_msgs = merged(DISCORD_FACTS, filler(rng, START, END, 330, DISCORD_POOLS, hours=(10, 23)))
    (archive / "discord").mkdir()
    exports.discord(archive / "discord" / "Foley Friends - general [884412399001234567].json", discord_msgs,
                    users={"Margo Chen": ("300111222333444551", "margo.foley"), "Dev Patel": ("300111222333444552", "devsounds"),
                           "Jules Moreau": ("300111222333444553", "jules.moreau"), ME: ("300111222333444554", "melo.bergeron")},
                    guild={"id": "884412399001230000", "name": "Foley Friends", "iconUrl": None},
                    channel={"id": "884412399001234567", "type": "GuildTextChat", "categoryId": "884412399001230001",
                             "category": "Text Channels", "name": "general", "topic": "sound people being sound people"},
                    exported_at="2024-03-15T20:00:00.000-04:00", zone=MTL)

    # Slack: Larkspur Games (from the first day)
    users = {"U05ML0001": ("melodie", ME, "Mélo"), "U05FM0002": ("fiona", "Fiona MacLeod", "Fiona"),
             "U05RC0003": ("ravi", "Ravi Chaudhry", "Ravi"), "U05NB0004": ("niamh", "Niamh Boyle", "Niamh"),
             "U05HG0005": ("hamish", "Hamish Grant", "Hamish")}
    general = merged([m for m in SLACK_FACTS if m[1] in ("Niamh Boyle", "Hamish Grant", "Fiona MacLeod") or m[2].startswith("Thanks")],
                     filler(rng, T("2023-04-17 12:00"), END, 220, SLACK_POOLS, hours=(9, 17)))
    audio = merged([m for m in SLACK_FACTS if m[1] == "Ravi Chaudhry"],
                   filler(rng, T("2023-04-17 12:00"), END, 230, SLACK_POOLS, hours=(9, 18)))
    dm = merged(SLACK_DM, filler(rng, T("2023-04-20 09:00"), T("2024-02-22 12:00"), 40,
                                 {"Fiona MacLeod": SLACK_POOLS["Fiona MacLeod"], ME: SLACK_POOLS[ME]}, hours=(9, 17)))
    exports.slack(archive / "Larkspur Games Slack export Mar 15 2024", [
        ("general", "general", general), ("audio", "audio", audio), ("dm", "D05FMML01", dm)],
        team="T05LARK01", users=users,
        channels=[exports.SlackChannel("C05GEN001", "general", "Studio-wide announcements", "Everyone at Larkspur"),
                  exports.SlackChannel("C05AUD002", "audio", "Sound, music, and bugs that go bump", "The audio team")],
        dms=[("D05FMML01", datetime(2023, 4, 18, 9, 0, tzinfo=GLA), ["U05FM0002", "U05ML0001"])],
        creator="U05NB0004", created=datetime(2019, 3, 1, 9, 0, tzinfo=GLA), zone=GLA, domain="larkspurgames.example")

    # mail: a Gmail Takeout mbox (newsletters between), and two saved .eml
    mails = _newsletters(rng)
    for stamp, zone, name, address, subject, body in REAL_MAIL:
        labels = "Sent" if name == ME else "Inbox,Important"
        mails.append(exports.Mail(T(stamp).replace(tzinfo=zone), name, address,
                                  ME + f" <{OWN_ADDRESS}>" if name != ME else "Daniel Côté <daniel@studiopiccolo.example>",
                                  subject, body, labels=labels))
    mails.sort(key=lambda m: m.when)
    exports.mbox(archive / "Takeout" / "Mail" / "All mail Including Spam and Trash.mbox", mails)
    (archive / "mail").mkdir()
    exports.eml(archive / "mail" / "Air Canada booking confirmation.eml", exports.Mail(
        datetime(2023, 3, 1, 13, 22, tzinfo=MTL), "Air Canada", "confirmation@aircanada.example", f"{ME} <{OWN_ADDRESS}>",
        "Booking confirmation - Montréal to Glasgow", "Booking reference QX7R2P. Passenger: BERGERON/MELODIE. "
        "Sunday 2 April 2023, AC 846 Montréal (YUL) 21:35 to London Heathrow, connecting to Glasgow (GLA), arriving Monday 3 April at 11:55. "
        "One cabin bag and two checked bags included.", domain="aircanada.example"))
    exports.eml(archive / "mail" / "Bemol pet travel.eml", exports.Mail(
        datetime(2023, 6, 26, 15, 5, tzinfo=MTL), "Réjean Bergeron", "rejean.bergeron@videotron.example", f"{ME} <{OWN_ADDRESS}>",
        "Bémol voyage", "Allo Mélo, c'est confirmé avec Air Canada : Bémol voyage avec moi en cabine le 7 juillet, dans son sac "
        "sous le siège. Ça coûte 118 $ pour lui. J'arrive à Glasgow le 8 au matin. Papa", domain="videotron.example"))

    # calendar, Zoom, journals, documents
    (archive / "calendar").mkdir()
    (archive / "calendar" / f"{OWN_ADDRESS}.ics").write_text(exports.calendar(
        CALENDAR, name=ME, zone="America/Toronto", stamp="20240315T200000Z",
        uid=lambda n, e: f"{zlib.crc32(f'{n}{e.summary}'.encode()):08x}{n:04d}@google.com", created="20240101T120000Z"),
        encoding="utf-8", newline="")
    (archive / "zoom").mkdir()
    exports.zoom_transcript(archive / "zoom" / "GMT20221018-150212_Recording.transcript.vtt", INTERVIEW,
                            start=4.0, chars_per_second=14.0, pause=0.8)
    (archive / "journal").mkdir()
    exports.journals(archive / "journal", _journal(rng), title="Journal")
    (archive / "documents").mkdir()
    exports.docx(archive / "documents" / "CV Mélodie Bergeron 2022.docx", CV, created=datetime(2022, 10, 10, 20, 0),
                 heading=True, author=ME)
    exports.docx(archive / "documents" / "Plan déménagement Glasgow.docx", MOVING_PLAN, created=datetime(2023, 1, 30, 21, 0),
                 heading=True, author=ME)
    exports.pdf(archive / "documents" / "2023-06-20 Tenancy agreement Dowanhill Street.pdf", LEASE,
                producer="West End Lettings e-sign", created="D:20230620120000+01'00'", gaps=[0])
    exports.pdf(archive / "documents" / "2024-02-29 Payslip February 2024.pdf", PAYSLIP,
                producer="Larkspur Payroll", created="D:20240229090000Z", gaps=[0, 3])


if __name__ == "__main__":
    write()
    files = [p for p in ARCHIVE.rglob("*") if p.is_file()]
    print(f"{len(files)} files in {ARCHIVE}")
