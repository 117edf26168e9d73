"""The deployed page's two CSPs in a real browser: the header's allows the region's execute-api hosts,
the page's own <meta> policy (written into index.html at deploy time) narrows fetches to the API's."""

from __future__ import annotations

import json

from playwright.sync_api import Browser, Route

from infra.components.web import WEB_DIR, content_security_policy, page_with_connect_policy

PAGE = "https://d111111abcdef8.cloudfront.net/"
API = "https://abc123defg.execute-api.us-east-1.amazonaws.com"
OTHER_API = "https://zzz999zzzz.execute-api.us-east-1.amazonaws.com"


def test_the_page_fetches_its_own_api_and_no_other_api_of_the_region(browser: Browser) -> None:
    index = page_with_connect_policy((WEB_DIR / "index.html").read_text(encoding="utf-8"), [API])
    header = content_security_policy(["https://*.execute-api.us-east-1.amazonaws.com"])
    context = browser.new_context()
    page = context.new_page()

    def serve(route: Route) -> None:
        url = route.request.url
        if url == PAGE:
            route.fulfill(
                status=200, body=index, content_type="text/html", headers={"content-security-policy": header}
            )
        elif url.startswith((API, OTHER_API)):
            route.fulfill(
                status=200,
                body=json.dumps({"ok": True}),
                content_type="application/json",
                headers={"access-control-allow-origin": PAGE.rstrip("/")},
            )
        else:
            route.fulfill(status=404, body="")

    page.route("**/*", serve)
    page.goto(PAGE)
    results = page.evaluate(
        """async ([api, other]) => {
            const blocked = [];
            document.addEventListener("securitypolicyviolation", (e) => blocked.push(e.blockedURI));
            const attempt = (url) => fetch(url).then((r) => r.status, () => "refused");
            const own = await attempt(api + "/chat");
            const foreign = await attempt(other + "/chat");
            await new Promise((done) => setTimeout(done, 100));
            return {own, foreign, blocked};
        }""",
        [API, OTHER_API],
    )
    context.close()

    assert results["own"] == 200
    assert results["foreign"] == "refused"
    assert any(uri.startswith(OTHER_API) for uri in results["blocked"]), results
