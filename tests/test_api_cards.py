"""/v1/cards: the names every frontend shows (docs/rules.md R1.4)."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.engine import DECK, VARIANTS


def names(client: FlaskClient, query: str = "", **headers: str) -> dict:  # type: ignore[type-arg]
    response = client.get(f"/v1/cards{query}", headers=headers)
    assert response.status_code == 200, response.json
    return response.get_json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("lang", "seven", "king", "suits"),
    [
        ("it", "Sette di denari", "Re di bastoni", ["denari", "coppe", "spade", "bastoni"]),
        ("en", "Seven of coins", "King of clubs", ["coins", "cups", "swords", "clubs"]),
        ("pt", "Sete de ouros", "Rei de paus", ["ouros", "copas", "espadas", "paus"]),
        ("es", "Siete de oros", "Rey de bastos", ["oros", "copas", "espadas", "bastos"]),
    ],
)
def test_each_language_names_the_italian_pack_as_r1_4_does(
    client: FlaskClient, lang: str, seven: str, king: str, suits: list[str]
) -> None:
    answer = names(client, f"?lang={lang}")
    by_card = {c["card"]: c["name"] for c in answer["cards"]}
    assert list(by_card) == [c.code for c in DECK]
    assert by_card["7D"] == seven and by_card["10B"] == king
    assert [s["name"] for s in answer["suits"]] == suits
    assert [s["suit"] for s in answer["suits"]] == ["D", "C", "S", "B"]
    assert len(set(by_card.values())) == 40
    assert [v["variant"] for v in answer["variants"]] == list(VARIANTS)


def test_french_faces(client: FlaskClient) -> None:
    answer = names(client, "?lang=en&faces=french")
    by_card = {c["card"]: c["name"] for c in answer["cards"]}
    assert by_card["9C"] == "Queen of hearts" and by_card["8D"] == "Jack of diamonds"
    assert names(client, "?lang=it&faces=french")["cards"][8]["name"] == "Donna di quadri"


def test_with_french_faces_the_coins_are_diamonds(client: FlaskClient) -> None:
    for lang, coins, settebello in (
        ("it", "Quadri", "Settebello"),
        ("es", "Diamantes", "Siete de diamantes"),
    ):
        categories = {
            c["category"]: c["name"]
            for c in names(client, f"?lang={lang}&faces=french")["categories"]
        }
        assert categories["coins"] == coins and categories["settebello"] == settebello
    italian = {c["category"]: c["name"] for c in names(client, "?lang=en")["categories"]}
    assert italian["coins"] == "Coins"


def test_the_categories_are_the_keys_of_a_hand_score(client: FlaskClient) -> None:
    from service.api.schemas import PointsSchema

    keys = [c["category"] for c in names(client, "?lang=es")["categories"]]
    assert keys == [*PointsSchema().fields, "total"]


def test_without_lang_the_browsers_language_is_taken(client: FlaskClient) -> None:
    response = client.get("/v1/cards", headers={"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"})
    assert response.get_json()["lang"] == "pt"
    assert response.headers["Content-Language"] == "pt"
    assert "Accept-Language" in response.headers["Vary"]
    assert names(client, "", **{"Accept-Language": "de"})["lang"] == "en"
    assert names(client)["lang"] == "en"


def test_an_unknown_language_is_a_422(client: FlaskClient) -> None:
    response = client.get("/v1/cards?lang=fr")
    assert response.status_code == 422
    assert response.json["type"] == "/problems/validation" and "lang" in response.json["errors"]
