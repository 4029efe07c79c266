"""Who is acting and what they may do: the proxy's login, OpenID Connect tokens and sessions,
roles and teams."""
