from agent.service import status


def test_patches_the_client_the_service_imported_by_from(mocker):
    client = mocker.patch("agent.clients.HttpClient")  # expect: TG201
    status()
    client.return_value.get.assert_called_once()


def test_patches_the_client_where_the_service_uses_it(mocker):
    client = mocker.patch("agent.service.HttpClient")
    status()
    client.return_value.get.assert_called_once()
